package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A digest of each operation a copy's log holds, by seq, so a replica sent a seq it already holds
 * can tell a harmless resend (the same op) from a diverged one (another op under that number,
 * which it must refuse rather than skip). The seqs are contiguous (a replica takes seq
 * {@code last + 1} only), so 8 bytes per operation in a ring from the first seq held.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link LivePartition} calls it under
 * its own lock.
 */
final class SeqDigests {
    private long[] digests = new long[64];
    private int start;
    private int count;
    /** The seq of {@code digests[start]}. */
    private long firstSeq = 1;

    /** Forgets everything: the next seq added is {@code afterSeq + 1}. */
    void reset(long afterSeq) {
        start = 0;
        count = 0;
        firstSeq = afterSeq + 1;
    }

    /** Adds the next seq's digest; a seq that does not follow the last starts over from it. */
    void add(WriteOp op) {
        long seq = op.getSeq();
        if (seq != firstSeq + count) {
            reset(seq - 1);
        }
        if (start + count == digests.length) {
            if (count < digests.length / 2) {
                System.arraycopy(digests, start, digests, 0, count);
            } else {
                digests = Arrays.copyOfRange(digests, start, start + digests.length * 2);
            }
            start = 0;
        }
        digests[start + count] = of(op);
        count++;
    }

    /** Whether the digest of {@code seq} is held (false for a seq trimmed from the log, or never taken). */
    boolean holds(long seq) {
        return seq >= firstSeq && seq < firstSeq + count;
    }

    /** Whether {@code op} is the op held under its seq; the seq must be {@link #holds held}. */
    boolean matches(WriteOp op) {
        return digests[start + (int) (op.getSeq() - firstSeq)] == of(op);
    }

    /** Forgets the seqs at or below {@code seq} (trimmed from the log). */
    void dropThrough(long seq) {
        long dropped = Math.min(count, Math.max(0, seq - firstSeq + 1));
        start += (int) dropped;
        count -= (int) dropped;
        firstSeq = Math.max(firstSeq + dropped, seq + 1);
        if (count == 0) {
            start = 0;
        }
    }

    /**
     * The first 8 bytes of the SHA-256 of what the op writes (kind, id, fields, seq): not its
     * expected version, which only the primary checks and a copy of the op may carry or not.
     */
    static long of(WriteOp op) {
        byte[] bytes = op.toBuilder().clearExpectedVersion().build().toByteArray();
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
            long digest = 0;
            for (int i = 0; i < 8; i++) {
                digest = digest << 8 | (hash[i] & 0xff);
            }
            return digest;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 (every JDK has it)", e);
        }
    }
}
