package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.search.RequestTag;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root's slow-query log: each search that took at least the threshold ({@link
 * HttpSettings#slowQuery()}, counted from its first byte to its result) is written on the logger
 * {@value #LOGGER} with what a person needs to see why: the request id, the time, the query and its
 * settings, coverage, the partitions' errors, and the explain trace, every sub-request with when it
 * was sent and answered and every leaf as the replica choice saw it (an answer's {@code coverage},
 * {@code errors}, {@code trace} and {@code leaves}, written by the answer's own writer, {@link
 * JsonResponses}), as one JSON object at the end of the line:
 *
 * <pre>request_id=3kq9zt1c-1f took_ms=1203.117 outcome=tainted query="europe*" {"k":10,...,"trace":[...],"leaves":[...]}</pre>
 *
 * A search that failed as a whole (timed out, say) has no result and so no trace; its line says why.
 * At most {@value #LINES_PER_SECOND} lines a second are written ({@link LineRateCap}): at overload
 * every search is slow, and the first few say why; the next line written after some were left out
 * says how many ({@code left_out=N}, after {@code outcome}).
 *
 * <p>The trace costs only the slow searches: a search is tagged ({@link #tag}) so that its result
 * holds the trace when it ran past the threshold, whether or not the client asked to explain (its
 * answer then leaves the trace out). The logger is on by default; {@code HEDGEROW_SLOW_QUERY_LOG=OFF}
 * turns it off, and then no trace is built. It is asynchronous like the access log ({@code
 * logback.xml}).
 *
 * <p><b>Assumptions and guarantees.</b> Shared by every event loop; holds nothing mutable.
 */
final class SlowQueryLog {
    static final String LOGGER = "hedgerow.slowquery";
    static final int LINES_PER_SECOND = 10;
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Logger log;
    private final long thresholdNanos;
    private final LineRateCap cap;

    /** @param threshold searches this slow or slower are logged; zero for none */
    SlowQueryLog(Duration threshold, Ticker ticker) {
        this.log = LoggerFactory.getLogger(LOGGER);
        this.thresholdNanos = threshold.isZero() ? Long.MAX_VALUE : threshold.toNanos();
        this.cap = new LineRateCap(ticker, LINES_PER_SECOND);
    }

    private boolean enabled() {
        return thresholdNanos != Long.MAX_VALUE && log.isInfoEnabled();
    }

    /** The tag of a search for the request {@code requestId}: traced when it reaches the threshold, if logged. */
    RequestTag tag(String requestId) {
        return new RequestTag(requestId, enabled() ? thresholdNanos : Long.MAX_VALUE);
    }

    /** Logs the search if it was slow. */
    void searched(String requestId, SearchRequest request, SearchResult result, long tookNanos) {
        if (tookNanos >= thresholdNanos && enabled() && cap.tryWrite()) {
            log.info(line(requestId, request, tookNanos, result.tainted() ? "tainted" : "complete", cap.leftOut(), null,
                    result));
        }
    }

    /** Logs the failed search if it was slow. */
    void failed(String requestId, SearchRequest request, Throwable cause, long tookNanos) {
        if (tookNanos >= thresholdNanos && enabled() && cap.tryWrite()) {
            String outcome = cause instanceof SearchException e ? e.kind().name().toLowerCase(Locale.ROOT)
                    : "internal_error";
            log.info(line(requestId, request, tookNanos, outcome, cap.leftOut(), String.valueOf(cause.getMessage()), null));
        }
    }

    static String line(String requestId, SearchRequest request, long tookNanos, String outcome, long leftOut,
            String failure, SearchResult result) {
        StringBuilder line = new StringBuilder(512);
        line.append("request_id=").append(requestId).append(" took_ms=");
        AccessLog.millis(line, tookNanos);
        line.append(" outcome=").append(outcome);
        if (leftOut > 0) {
            line.append(" left_out=").append(leftOut);
        }
        line.append(" query=");
        AccessLog.quoted(line, request.query());
        line.append(' ');
        StringWriter detail = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(detail)) {
            json.writeStartObject();
            json.writeNumberField("k", request.k());
            json.writeNumberField("timeout_ms", request.timeoutMillis());
            json.writeStringField("priority", request.priority().label());
            if (request.hedge() != null) {
                json.writeStringField("hedge", request.hedge().name().toLowerCase(Locale.ROOT));
            }
            if (request.routing() != null) {
                json.writeStringField("routing", request.routing());
            }
            if (failure != null) {
                json.writeStringField("failure", failure);
            }
            if (result != null) {
                writeResult(json, result);
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return line.append(detail).toString();
    }

    /** What the answer would say of the result, with its explain trace: written by the answer's own writer. */
    private static void writeResult(JsonGenerator json, SearchResult result) throws IOException {
        json.writeNumberField("hits", result.hits().size());
        json.writeStringField("cache", result.cache().label());
        JsonResponses.writeCoverage(json, result.coverage());
        JsonResponses.writeErrors(json, result.errors());
        JsonResponses.writeTrace(json, result);
    }
}
