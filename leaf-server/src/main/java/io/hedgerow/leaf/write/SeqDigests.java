package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A digest of each operation a copy's log holds, by seq, so a replica sent a seq it already holds
 * can tell a harmless resend (the same op) from a diverged one (another op under that number,
 * which it must refuse rather than skip). 8 bytes per logged op ({@link SeqRing}).
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link LivePartition} calls it under
 * its own lock.
 */
final class SeqDigests {
    private final SeqRing ring = new SeqRing();
    /** Reused for every digest of this copy's ops (all taken under its lock): no provider lookup per op. */
    private final MessageDigest sha256 = sha256();

    /** Forgets everything: the next seq added is {@code afterSeq + 1}. */
    void reset(long afterSeq) {
        ring.reset(afterSeq);
    }

    /** Adds the next seq's op; a seq that does not follow the last starts over from it. */
    void add(WriteOp op) {
        ring.add(op.getSeq(), digest(op));
    }

    /** Whether the digest of {@code seq} is held (false for a seq trimmed from the log, or never taken). */
    boolean holds(long seq) {
        return ring.holds(seq);
    }

    /** Whether {@code op} is the op held under its seq; the seq must be {@link #holds held}. */
    boolean matches(WriteOp op) {
        return ring.get(op.getSeq()) == digest(op);
    }

    /** {@link #of}, with this object's own {@link MessageDigest}. */
    long digest(WriteOp op) {
        return of(op, sha256);
    }

    /** Forgets the seqs at or below {@code seq} (trimmed from the log). */
    void dropThrough(long seq) {
        ring.dropThrough(seq);
    }

    /**
     * The first 8 bytes of the SHA-256 of what the op writes (kind, id, fields, seq): not its
     * expected version nor whether it was create-only, which only the primary checks and a copy of
     * the op may carry or not.
     */
    static long of(WriteOp op) {
        return of(op, sha256());
    }

    private static long of(WriteOp op, MessageDigest sha256) {
        // proto3: a field at its default is not encoded, so an op with neither set encodes as its
        // cleared copy would, and is not copied.
        WriteOp content = op.getExpectedVersion() == 0 && !op.getCreateOnly() ? op
                : op.toBuilder().clearExpectedVersion().clearCreateOnly().build();
        byte[] hash = sha256.digest(content.toByteArray());
        long digest = 0;
        for (int i = 0; i < 8; i++) {
            digest = digest << 8 | (hash[i] & 0xff);
        }
        return digest;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 (every JDK has it)", e);
        }
    }
}
