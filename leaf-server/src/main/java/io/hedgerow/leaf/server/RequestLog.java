package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The leaf's log lines about one request. While a worker (or an event loop) runs a task, the HTTP
 * request's id the root sent ({@code log_request_id}) is in the MDC under {@value #MDC_KEY}, so every
 * line logged meanwhile names it (logback.xml prints it in brackets, JSON lines in {@code mdc}); it
 * is removed when the task leaves the thread. The logger {@value #LOGGER} writes one line per
 * answer at DEBUG (off by default: a level check per answer).
 *
 * <p><b>Assumptions and guarantees.</b> Touches only the calling thread's MDC; holds nothing.
 */
final class RequestLog {
    static final String MDC_KEY = "request_id";
    static final String LOGGER = "io.hedgerow.leaf.requests";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private RequestLog() {
    }

    /**
     * Puts {@code requestId} in this thread's MDC; nothing when it is empty.
     *
     * @return whether it did: then {@link #untag} must follow, in a finally
     */
    static boolean tag(String requestId) {
        if (requestId.isEmpty()) {
            return false;
        }
        MDC.put(MDC_KEY, requestId);
        return true;
    }

    /** Takes the request id out of this thread's MDC if {@link #tag} put it there. */
    static void untag(boolean tagged) {
        if (tagged) {
            MDC.remove(MDC_KEY);
        }
    }

    /** Whether {@link #answered} writes anything: ask first, so that a task gathers nothing for a line not written. */
    static boolean enabled() {
        return LOG.isDebugEnabled();
    }

    /** The DEBUG line of an answer a task sent. */
    static void answered(String what, long requestId, Frame answer, long receivedNanos, long nowNanos) {
        String status = switch (answer.getBodyCase()) {
            case RESULT -> answer.getResult().getStatus() + " partition " + answer.getResult().getPartition()
                    + ", " + answer.getResult().getHitsCount() + " hits";
            case FETCH_RESULT -> answer.getFetchResult().getStatus() + ", " + answer.getFetchResult().getDocsCount()
                    + " documents";
            default -> answer.getBodyCase().name();
        };
        LOG.debug("{} {} answered {} after {} us", what, requestId, status, (nowNanos - receivedNanos) / 1000);
    }
}
