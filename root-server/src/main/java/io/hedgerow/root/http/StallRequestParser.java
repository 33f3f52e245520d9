package io.hedgerow.root.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.List;

/**
 * Turns the JSON body of {@code POST /admin/leaves/{n}/stall} into an {@link InjectedStall}, or an
 * {@link ApiException} naming the field and what was expected. As strict as {@code /search}.
 */
final class StallRequestParser {
    static final List<String> FIELDS = List.of("stall_ms", "every_ms", "duration_ms");
    /** Long enough to watch a stall's effect, short enough that a forgotten one goes away. */
    static final long DEFAULT_DURATION_MS = DelayRequestParser.DEFAULT_DURATION_MS;
    private static final long MAX_STALL_MS = InjectedStall.MAX_STALL.toMillis();
    private static final long MAX_PERIOD_MS = InjectedStall.MAX_PERIOD.toMillis();
    private static final long MAX_DURATION_MS = InjectedDelay.MAX_DURATION.toMillis();
    private static final String EXAMPLE = "{\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 60000}";
    private static final ObjectReader BODY_READER = SearchRequestParser.strictMapper().readerFor(Body.class);

    private StallRequestParser() {
    }

    /**
     * The body; an absent duration takes its default.
     *
     * @param stallMs    how long each stall lasts, in milliseconds (fractions allowed); 0 clears
     * @param everyMs    from the start of one stall to the start of the next, more than {@code stallMs}
     * @param durationMs how long the stalls go on before the leaf clears them by itself; default 60,000
     */
    record Body(
            @JsonProperty("stall_ms") Double stallMs,
            @JsonProperty("every_ms") Double everyMs,
            @JsonProperty("duration_ms") Long durationMs) {
    }

    static InjectedStall parse(ByteBuf content) throws ApiException {
        Body body = AdminBodies.read(content, BODY_READER, FIELDS, EXAMPLE,
                field -> field.equals("duration_ms") ? "an integer" : "a number");
        return toStall(body);
    }

    private static InjectedStall toStall(Body body) throws ApiException {
        if (body.stallMs() == null) {
            throw ApiException.badRequest("missing field 'stall_ms' (expected: milliseconds, or 0 to clear)");
        }
        double stallMs = body.stallMs();
        if (!(stallMs >= 0 && stallMs <= MAX_STALL_MS)) {
            throw ApiException.badRequest("stall_ms: " + body.stallMs() + " (expected: 0.." + MAX_STALL_MS + ")");
        }
        long stallNanos = Math.round(stallMs * 1_000_000);
        if (stallNanos == 0) {
            return InjectedStall.NONE;
        }
        if (body.everyMs() == null) {
            throw ApiException.badRequest("missing field 'every_ms' (expected: milliseconds from the start of one stall "
                    + "to the next, more than stall_ms)");
        }
        double everyMs = body.everyMs();
        long everyNanos = Math.round(everyMs * 1_000_000);
        if (!(everyMs <= MAX_PERIOD_MS) || everyNanos <= stallNanos) {
            throw ApiException.badRequest("every_ms: " + body.everyMs() + " (expected: more than stall_ms " + body.stallMs()
                    + ", at most " + MAX_PERIOD_MS + ")");
        }
        long durationMs = body.durationMs() == null ? DEFAULT_DURATION_MS : body.durationMs();
        // 0 could read as "for ever", which no injected fault may be: refuse it rather than clear.
        if (durationMs < 1 || durationMs > MAX_DURATION_MS) {
            throw ApiException.badRequest("duration_ms: " + durationMs + " (expected: 1.." + MAX_DURATION_MS + ")");
        }
        return new InjectedStall(stallNanos, everyNanos, Duration.ofMillis(durationMs).toNanos());
    }
}
