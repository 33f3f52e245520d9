package io.hedgerow.leaf.index;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * Hears how far a build has got. The builder calls it at most about once a second, from the thread
 * that called {@link IndexBuilder#build}, so an implementation may print without locking.
 */
@FunctionalInterface
public interface IndexProgress {

    /**
     * @param docs         documents read and handed to the writers so far
     * @param elapsedNanos time since the build started
     */
    void indexed(long docs, long elapsedNanos);

    /** Hears nothing. */
    static IndexProgress none() {
        return (docs, elapsedNanos) -> {
        };
    }

    /** Sends each report as one line such as {@code indexed 8,000 docs (4,100 docs/s)}. */
    static IndexProgress lines(Consumer<String> sink) {
        return (docs, elapsedNanos) -> sink.accept(line(docs, elapsedNanos));
    }

    /** {@code indexed 8,000 docs (4,100 docs/s)}. */
    static String line(long docs, long elapsedNanos) {
        return String.format(Locale.ROOT, "indexed %,d docs (%,d docs/s)", docs, docsPerSecond(docs, elapsedNanos));
    }

    /** The mean rate, rounded; 0 before any time has passed. */
    static long docsPerSecond(long docs, long elapsedNanos) {
        return elapsedNanos <= 0 ? 0 : Math.round(docs * 1e9 / elapsedNanos);
    }
}
