package io.hedgerow.loadgen.scenario;

import java.time.Duration;

/**
 * Parses human durations such as {@code 150ms}, {@code 10s}, {@code 2m} or {@code 1.5s}. The parser
 * moved to {@link io.hedgerow.common.time.Durations} (the leaf's flags read the same forms); this
 * delegate keeps code that names it compiling, and new code uses the common one.
 */
public final class Durations {
    private Durations() {
    }

    /** @throws IllegalArgumentException naming the text and the accepted forms */
    public static Duration parse(String text) {
        return io.hedgerow.common.time.Durations.parse(text);
    }
}
