package io.hedgerow.leaf.index;

import java.util.Objects;

/**
 * How an {@link IndexBuilder} builds. None of these settings changes which documents end up in
 * which partition; {@code threads} and {@code ramBufferMb} change only speed and memory.
 *
 * @param partitions  micro-partitions to spread documents over, 1..10000
 * @param badLines    what a bad input line does to the build
 * @param forceMerge  merge each partition to one segment at the end: slower to build, and
 *                    searches then behave the same on every build of the same input
 * @param threads     indexing threads; each partition is written by exactly one of them
 * @param ramBufferMb memory for buffered documents, shared by all partitions' writers (each gets
 *                    at least 1 MB)
 */
public record IndexOptions(int partitions, BadLinePolicy badLines, boolean forceMerge, int threads, double ramBufferMb) {
    public static final int DEFAULT_PARTITIONS = 16;
    public static final double DEFAULT_RAM_BUFFER_MB = 64;

    public IndexOptions {
        if (partitions < 1 || partitions > Partitioner.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1.." + Partitioner.MAX_PARTITIONS + ")");
        }
        Objects.requireNonNull(badLines, "badLines");
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        if (!(ramBufferMb > 0)) {
            throw new IllegalArgumentException("ramBufferMb: " + ramBufferMb + " (expected: > 0)");
        }
    }

    /** 16 partitions, fail on a bad line, force-merge, one thread per core, 64 MB of buffer. */
    public static IndexOptions defaults() {
        return new IndexOptions(DEFAULT_PARTITIONS, BadLinePolicy.FAIL, true,
                Runtime.getRuntime().availableProcessors(), DEFAULT_RAM_BUFFER_MB);
    }

    public IndexOptions withPartitions(int partitions) {
        return new IndexOptions(partitions, badLines, forceMerge, threads, ramBufferMb);
    }

    public IndexOptions withBadLines(BadLinePolicy badLines) {
        return new IndexOptions(partitions, badLines, forceMerge, threads, ramBufferMb);
    }

    public IndexOptions withForceMerge(boolean forceMerge) {
        return new IndexOptions(partitions, badLines, forceMerge, threads, ramBufferMb);
    }

    public IndexOptions withThreads(int threads) {
        return new IndexOptions(partitions, badLines, forceMerge, threads, ramBufferMb);
    }

    public IndexOptions withRamBufferMb(double ramBufferMb) {
        return new IndexOptions(partitions, badLines, forceMerge, threads, ramBufferMb);
    }
}
