package io.hedgerow.loadgen.queries;

import java.util.Locale;

/**
 * What shape of search a run sends for each query of its set: {@code plain} ({@code GET
 * /search?q=...}, the generator's historical request), {@code structured} (a JSON body of {@code
 * POST /search} with filters, sorts, pages and facets: {@link StructuredMix}, each request drawing a
 * shape by its share), or {@code structured:SHAPE}, every request of that one shape: a run of it
 * measures what the shape alone costs, its leaves' service-time tables a distribution the
 * simulator can draw that shape from ({@code simulate --mix-service}).
 *
 * @param structured whether requests are JSON bodies of the structured mix
 * @param only       the one shape every request takes, or null to draw each by its share
 */
public record RequestMix(boolean structured, StructuredMix.Shape only) {
    public static final RequestMix PLAIN = new RequestMix(false, null);
    public static final RequestMix STRUCTURED = new RequestMix(true, null);

    public RequestMix {
        if (only != null && !structured) {
            throw new IllegalArgumentException("only: " + only + " (expected: none for the plain mix)");
        }
    }

    /**
     * Parses {@code plain}, {@code structured} or {@code structured:SHAPE} (plain, filtered, sorted,
     * paged or faceted); null is plain.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static RequestMix parse(String text) {
        if (text == null) {
            return PLAIN;
        }
        String mix = text.strip().toLowerCase(Locale.ROOT);
        if (mix.equals("plain")) {
            return PLAIN;
        }
        if (mix.equals("structured")) {
            return STRUCTURED;
        }
        if (mix.startsWith("structured:")) {
            String name = mix.substring("structured:".length());
            for (StructuredMix.Shape shape : StructuredMix.Shape.values()) {
                if (shape.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return new RequestMix(true, shape);
                }
            }
        }
        throw new IllegalArgumentException("request mix: '" + text + "' (expected: plain, structured, or"
                + " structured:SHAPE with SHAPE one of plain, filtered, sorted, paged, faceted)");
    }

    /** {@code plain}, {@code structured (plain 20%, filtered 25%, ...)} or {@code structured (faceted only)}. */
    public String describe() {
        if (!structured) {
            return "plain";
        }
        return "structured (" + (only == null ? StructuredMix.Shape.describe()
                : only.name().toLowerCase(Locale.ROOT) + " only") + ")";
    }
}
