package io.hedgerow.loadgen.queries;

import java.util.Locale;

/**
 * What shape of search a run sends for each query of its set: {@code plain} ({@code GET
 * /search?q=...}, the generator's historical request) or {@code structured} (a JSON body of {@code
 * POST /search} with filters, sorts, pages and facets: {@link StructuredMix}).
 */
public enum RequestMix {
    PLAIN,
    STRUCTURED;

    /**
     * Parses {@code plain} or {@code structured}; null is plain.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static RequestMix parse(String text) {
        if (text == null) {
            return PLAIN;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "plain" -> PLAIN;
            case "structured" -> STRUCTURED;
            default -> throw new IllegalArgumentException("request mix: '" + text + "' (expected: plain or structured)");
        };
    }

    /** {@code plain}, or {@code structured (plain 20%, filtered 25%, ...)}. */
    public String describe() {
        return this == PLAIN ? "plain" : "structured (" + StructuredMix.Shape.describe() + ")";
    }
}
