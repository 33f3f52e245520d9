package io.hedgerow.root.http;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * The id of each HTTP request: the client's {@code X-Request-Id} when it is one that is safe to log,
 * otherwise one made here. The answer's header and its JSON carry it back, every sub-request carries
 * it to its leaf, and the access log, the slow-query log and the leaves' log lines name it.
 *
 * <p>A made id is this root's random prefix and a counter ({@code 3kq9zt1c-1f}): unique per root
 * process and across roots with near certainty, and cheaper than a UUID per request.
 *
 * <p><b>Assumptions and guarantees.</b> Called from every event loop at once: the counter is an
 * atomic increment, nothing else is shared or mutable.
 */
final class RequestIds {
    static final AsciiString HEADER = AsciiString.cached("x-request-id");
    /** Longest client id taken as it is; a longer one is replaced. */
    static final int MAX_CHARS = 128;

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    RequestIds(RandomGenerator random) {
        // 40 random bits, in base 36: 8 characters or fewer.
        this.prefix = Long.toString(random.nextLong() >>> 24, 36) + "-";
    }

    /** The client's id from {@code headers} when {@link #acceptable}, else a new one. */
    String of(HttpHeaders headers) {
        String given = headers.get(HEADER);
        return given != null && acceptable(given) ? given : next();
    }

    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }

    /**
     * Whether a client's id is taken as it is: 1 to {@value #MAX_CHARS} visible ASCII characters,
     * none of them a quote or a backslash, so that it cannot forge or break a log line (no spaces,
     * no line breaks) and needs no escaping anywhere.
     */
    static boolean acceptable(String id) {
        if (id.isEmpty() || id.length() > MAX_CHARS) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }
}
