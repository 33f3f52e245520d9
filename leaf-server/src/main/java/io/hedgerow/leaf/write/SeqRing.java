package io.hedgerow.leaf.write;

import java.util.Arrays;

/**
 * One long per seq for a contiguous run of seqs (a copy's log holds seqs {@code first..last}
 * without a gap: a replica takes seq {@code last + 1} only), 8 bytes each, in a ring from the
 * first seq held: a digest of each logged op ({@link SeqDigests}), or where its record starts in
 * the log ({@link WriteLog}).
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its owner calls it under its own lock.
 */
final class SeqRing {
    private long[] values = new long[64];
    private int start;
    private int count;
    /** The seq of {@code values[start]}. */
    private long firstSeq = 1;

    /** Forgets everything: the next seq added is {@code afterSeq + 1}. */
    void reset(long afterSeq) {
        start = 0;
        count = 0;
        firstSeq = afterSeq + 1;
    }

    /** Adds the next seq's value; a seq that does not follow the last starts the run over from it. */
    void add(long seq, long value) {
        if (seq != firstSeq + count) {
            reset(seq - 1);
        }
        if (start + count == values.length) {
            if (count < values.length / 2) {
                System.arraycopy(values, start, values, 0, count);
            } else {
                values = Arrays.copyOfRange(values, start, start + values.length * 2);
            }
            start = 0;
        }
        values[start + count] = value;
        count++;
    }

    /** Whether a value is held for {@code seq}. */
    boolean holds(long seq) {
        return seq >= firstSeq && seq < firstSeq + count;
    }

    /** The value of a {@link #holds held} seq. */
    long get(long seq) {
        if (!holds(seq)) {
            throw new IllegalArgumentException("seq: " + seq + " (expected: one held, " + firstSeq + ".."
                    + (firstSeq + count - 1) + ")");
        }
        return values[start + (int) (seq - firstSeq)];
    }

    /** The first seq held (or the next one to add, when none is). */
    long firstSeq() {
        return firstSeq;
    }

    /** Forgets the seqs at or below {@code seq}. */
    void dropThrough(long seq) {
        long dropped = Math.min(count, Math.max(0, seq - firstSeq + 1));
        start += (int) dropped;
        count -= (int) dropped;
        firstSeq = Math.max(firstSeq + dropped, seq + 1);
        if (count == 0) {
            start = 0;
        }
    }
}
