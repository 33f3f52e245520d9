package io.hedgerow.root.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.List;

/**
 * Turns the JSON body of {@code POST /admin/leaves/{n}/delay} into an {@link InjectedDelay}, or an
 * {@link ApiException} naming the field and what was expected. As strict as {@code /search}.
 */
final class DelayRequestParser {
    static final List<String> FIELDS = List.of("delay_ms", "probability", "duration_ms", "seed", "distribution");
    /** Long enough to watch a delay's effect, short enough that a forgotten one goes away. */
    static final long DEFAULT_DURATION_MS = 60_000;
    private static final long MAX_DELAY_MS = InjectedDelay.MAX_DELAY.toMillis();
    private static final long MAX_DURATION_MS = InjectedDelay.MAX_DURATION.toMillis();
    private static final String EXAMPLE = "{\"delay_ms\": 50, \"probability\": 0.05, \"duration_ms\": 30000}";
    private static final ObjectReader BODY_READER = SearchRequestParser.strictMapper().readerFor(Body.class);

    private DelayRequestParser() {
    }

    /**
     * The body; absent fields take their defaults.
     *
     * @param delayMs      how long a delayed sub-request is held, in milliseconds (fractions allowed),
     *                     or the mean of the exponential distribution; 0 clears
     * @param probability  0..1, default 1
     * @param durationMs   how long the delay lasts before the leaf clears it by itself; default 60,000
     * @param seed         seed of the leaf's coin flips and draws; absent or 0: the leaf chooses
     * @param distribution {@code fixed} (default) or {@code exponential}
     */
    record Body(
            @JsonProperty("delay_ms") Double delayMs,
            @JsonProperty("probability") Double probability,
            @JsonProperty("duration_ms") Long durationMs,
            @JsonProperty("seed") Long seed,
            @JsonProperty("distribution") String distribution) {
    }

    static InjectedDelay parse(ByteBuf content) throws ApiException {
        Body body = AdminBodies.read(content, BODY_READER, FIELDS, EXAMPLE, field -> switch (field) {
            case "delay_ms", "probability" -> "a number";
            case "distribution" -> "a string";
            default -> "an integer";
        });
        return toDelay(body);
    }

    private static InjectedDelay toDelay(Body body) throws ApiException {
        if (body.delayMs() == null) {
            throw ApiException.badRequest("missing field 'delay_ms' (expected: milliseconds, or 0 to clear)");
        }
        double delayMs = body.delayMs();
        if (!(delayMs >= 0 && delayMs <= MAX_DELAY_MS)) {
            throw ApiException.badRequest("delay_ms: " + body.delayMs() + " (expected: 0.." + MAX_DELAY_MS + ")");
        }
        double probability = body.probability() == null ? 1.0 : body.probability();
        if (!(probability >= 0 && probability <= 1)) {
            throw ApiException.badRequest("probability: " + probability + " (expected: 0..1)");
        }
        long durationMs = body.durationMs() == null ? DEFAULT_DURATION_MS : body.durationMs();
        // 0 could read as "for ever", which no injected fault may be: refuse it rather than clear.
        if (durationMs < 1 || durationMs > MAX_DURATION_MS) {
            throw ApiException.badRequest("duration_ms: " + durationMs + " (expected: 1.." + MAX_DURATION_MS + ")");
        }
        InjectedDelay.Distribution distribution = distribution(body.distribution());
        long delayNanos = Math.round(delayMs * 1_000_000);
        if (delayNanos == 0) {
            return InjectedDelay.NONE;
        }
        return new InjectedDelay(delayNanos, probability, Duration.ofMillis(durationMs).toNanos(),
                body.seed() == null ? 0 : body.seed(), distribution);
    }

    private static InjectedDelay.Distribution distribution(String text) throws ApiException {
        if (text == null) {
            return InjectedDelay.Distribution.FIXED;
        }
        for (InjectedDelay.Distribution distribution : InjectedDelay.Distribution.values()) {
            if (distribution.label().equals(text)) {
                return distribution;
            }
        }
        throw ApiException.badRequest("distribution: '" + text + "' (expected: fixed or exponential)");
    }
}
