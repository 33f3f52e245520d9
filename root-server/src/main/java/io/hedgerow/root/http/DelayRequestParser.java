package io.hedgerow.root.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;

/**
 * Turns the JSON body of {@code POST /admin/leaves/{n}/delay} into an {@link InjectedDelay}, or an
 * {@link ApiException} naming the field and what was expected. As strict as {@code /search}.
 */
final class DelayRequestParser {
    static final List<String> FIELDS = List.of("delay_ms", "probability", "duration_ms", "seed");
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
     * @param delayMs     how long a delayed sub-request is held, in milliseconds (fractions allowed); 0 clears
     * @param probability 0..1, default 1
     * @param durationMs  how long the delay lasts before the leaf clears it by itself; default 60,000
     * @param seed        seed of the leaf's coin flips; absent or 0: the leaf chooses
     */
    record Body(
            @JsonProperty("delay_ms") Double delayMs,
            @JsonProperty("probability") Double probability,
            @JsonProperty("duration_ms") Long durationMs,
            @JsonProperty("seed") Long seed) {
    }

    static InjectedDelay parse(ByteBuf content) throws ApiException {
        if (!content.isReadable()) {
            throw ApiException.badRequest("empty body (expected: a JSON object such as " + EXAMPLE + ")");
        }
        Body body;
        try {
            body = BODY_READER.readValue((InputStream) new ByteBufInputStream(content.duplicate()));
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.badRequest("unknown field '" + e.getPropertyName() + "' (expected one of: "
                    + String.join(", ", FIELDS) + ")");
        } catch (JsonParseException e) {
            throw ApiException.badRequest("malformed JSON: " + SearchRequestParser.withoutSourceLocation(e.getOriginalMessage())
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        } catch (MismatchedInputException e) {
            String field = e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
            throw ApiException.badRequest(field == null ? "body must be a JSON object (expected: " + EXAMPLE + ")"
                    : "field '" + field + "' must be " + (field.equals("delay_ms") || field.equals("probability")
                            ? "a number" : "an integer"));
        } catch (JacksonException e) {
            throw ApiException.badRequest("malformed JSON: " + SearchRequestParser.withoutSourceLocation(e.getOriginalMessage()));
        } catch (IOException e) {
            throw ApiException.badRequest("unreadable body: " + e.getMessage());
        }
        if (body == null) {
            throw ApiException.badRequest("body is null (expected: a JSON object such as " + EXAMPLE + ")");
        }
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
        long delayNanos = Math.round(delayMs * 1_000_000);
        if (delayNanos == 0) {
            return InjectedDelay.NONE;
        }
        return new InjectedDelay(delayNanos, probability, Duration.ofMillis(durationMs).toNanos(),
                body.seed() == null ? 0 : body.seed());
    }
}
