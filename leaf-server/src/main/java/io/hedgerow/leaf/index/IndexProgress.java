package io.hedgerow.leaf.index;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Hears how far a build has got. The builder calls it from the thread that called
 * {@link IndexBuilder#build}, so an implementation may print without locking: about once a second
 * at first, then less often on a long build (see {@link IndexBuilder}).
 */
@FunctionalInterface
public interface IndexProgress {

    /**
     * @param docs         documents read and handed to the writers so far
     * @param expectedDocs documents the source will yield in all, or -1 when it cannot say
     * @param elapsedNanos time since the build started
     */
    void indexed(long docs, long expectedDocs, long elapsedNanos);

    /**
     * Every document has been read, and the writers now flush, merge (unless told not to) and
     * commit, which can take minutes on a big build. Called only on builds long enough to have
     * reported progress.
     *
     * @param docs         documents read
     * @param partitions   partitions being committed
     * @param merging      whether each partition is being merged into one segment
     * @param elapsedNanos time since the build started
     */
    default void committing(long docs, int partitions, boolean merging, long elapsedNanos) {
    }

    /** Hears nothing. */
    static IndexProgress none() {
        return (docs, expectedDocs, elapsedNanos) -> {
        };
    }

    /** Sends each report as one line, see {@link #line} and {@link #committingLine}. */
    static IndexProgress lines(Consumer<String> sink) {
        return new IndexProgress() {
            @Override
            public void indexed(long docs, long expectedDocs, long elapsedNanos) {
                sink.accept(line(docs, expectedDocs, elapsedNanos));
            }

            @Override
            public void committing(long docs, int partitions, boolean merging, long elapsedNanos) {
                sink.accept(committingLine(docs, partitions, merging, elapsedNanos));
            }
        };
    }

    /** {@code indexed 8,000 docs (4,100 docs/s)}. */
    static String line(long docs, long elapsedNanos) {
        return line(docs, -1, elapsedNanos);
    }

    /**
     * {@code indexed 8,000 docs (4,100 docs/s)}, or when the total is known
     * {@code indexed 412,345 of 1,055,820 docs (39%, 3,512 docs/s, 3 min 2 s to go)}; the time to
     * go assumes the mean rate so far holds, and leaves out the final merge.
     */
    static String line(long docs, long expectedDocs, long elapsedNanos) {
        long rate = docsPerSecond(docs, elapsedNanos);
        if (expectedDocs < 0) {
            return String.format(Locale.ROOT, "indexed %,d docs (%,d docs/s)", docs, rate);
        }
        String toGo = docs == 0 || elapsedNanos <= 0 ? ""
                : ", " + duration((long) ((double) Math.max(0, expectedDocs - docs) * elapsedNanos / docs)) + " to go";
        return String.format(Locale.ROOT, "indexed %,d of %,d docs (%d%%, %,d docs/s%s)", docs, expectedDocs,
                expectedDocs == 0 ? 100 : docs * 100 / expectedDocs, rate, toGo);
    }

    /**
     * {@code read 1,055,820 docs in 5 min 1 s; now merging each of the 16 partitions into one
     * segment and committing them}.
     */
    static String committingLine(long docs, int partitions, boolean merging, long elapsedNanos) {
        return String.format(Locale.ROOT, "read %,d docs in %s; now %s", docs, duration(elapsedNanos), merging
                ? String.format(Locale.ROOT, "merging each of the %,d partitions into one segment and committing them", partitions)
                : String.format(Locale.ROOT, "committing the %,d partitions", partitions));
    }

    /** The mean rate, rounded; 0 before any time has passed. */
    static long docsPerSecond(long docs, long elapsedNanos) {
        return elapsedNanos <= 0 ? 0 : Math.round(docs * 1e9 / elapsedNanos);
    }

    /** {@code 42 s}, {@code 3 min 2 s}, {@code 1 h 5 min}: as precise as a person needs. */
    static String duration(long nanos) {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos + 500_000_000L);
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min " + seconds % 60 + " s";
        }
        long minutes = (seconds + 30) / 60;
        return minutes / 60 + " h " + minutes % 60 + " min";
    }
}
