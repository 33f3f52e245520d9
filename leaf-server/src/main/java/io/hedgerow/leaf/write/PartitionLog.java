package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * A live copy's write-ahead log as its seqs see it: the {@link WriteLog}, a digest of each op it
 * holds ({@link SeqDigests}, so a resend is told from a diverged op), and how far it was trimmed
 * ({@link #trimmedSeq}: it holds every write above it) and may be ({@link #allowTrimming}). The
 * Lucene side of the copy (applying ops, versions, commits, readers) is {@link LivePartition}'s,
 * which numbers the ops and knows the copy's last seq.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link LivePartition} calls it under its
 * own monitor. An op is in the digests only once its record is synced.
 */
final class PartitionLog implements Closeable {
    private final int partition;
    private final WriteLog log;
    /** What op the log holds under each seq, to tell a resend from a diverged op. */
    private final SeqDigests digests = new SeqDigests();
    /** The root's word: every replica holds every write up to it (or is given up on). */
    private long trimmableSeq;
    /** The log holds every write above this seq (and none at or below it, once trimmed). */
    private long trimmedSeq;

    /**
     * @param logged       what opening {@code log} read back, in order
     * @param committedSeq the seq the copy's Lucene commit covers: an empty log may have been trimmed up to it
     */
    PartitionLog(int partition, WriteLog log, List<WriteOp> logged, long committedSeq) {
        this.partition = partition;
        this.log = log;
        // A trimmed log starts above what was dropped; an empty one may have dropped up to the commit.
        trimmedSeq = logged.isEmpty() ? committedSeq : logged.get(0).getSeq() - 1;
        digests.reset(trimmedSeq);
        logged.forEach(digests::add);
    }

    /** Logs {@code ops} (numbered on from the last held) and syncs them; an error fails the log for good. */
    void appendAndSync(List<WriteOp> ops) throws IOException {
        log.append(ops);
        log.sync();
        ops.forEach(digests::add);
    }

    /**
     * A replica was sent a seq it holds: fine when it is the same op (a resend), else the copies
     * diverged. {@code batch} holds the ops of the batch being written, numbered from
     * {@code seqBefore + 1}: a seq among them is compared with the batch's op.
     *
     * @throws IOException ({@link LivePartition#DIVERGED}) when another op is held under the seq, or
     *                     when it was trimmed, so whether it is the same op cannot be told
     */
    void requireSameOp(WriteOp op, long seqBefore, List<WriteOp> batch) throws IOException {
        long seq = op.getSeq();
        boolean same;
        if (seq > seqBefore) {
            same = digests.digest(batch.get((int) (seq - seqBefore - 1))) == digests.digest(op);
        } else if (digests.holds(seq)) {
            same = digests.matches(op);
        } else {
            throw new IOException(LivePartition.DIVERGED + "partition " + partition + " was sent seq " + seq
                    + ", which it holds but no longer has in its log (trimmed at seq " + trimmedSeq + "), so it cannot"
                    + " tell whether it is the same op; refused");
        }
        if (!same) {
            throw new IOException(LivePartition.DIVERGED + "partition " + partition + " holds another op under seq "
                    + seq + " than the one sent (id '" + op.getId() + "'): this copy must be rebuilt from the primary");
        }
    }

    /**
     * The logged writes above {@code fromSeq}, at most {@link LivePartition#LOG_READ_BYTES} of them
     * (at least one).
     *
     * @throws IOException ({@link LivePartition#TRIMMED}) when some of them were trimmed from the log
     */
    List<WriteOp> readFrom(long fromSeq) throws IOException {
        if (fromSeq < trimmedSeq) {
            throw new IOException(LivePartition.TRIMMED + "partition " + partition + " keeps writes above seq "
                    + trimmedSeq + " and the replica needs them from seq " + (fromSeq + 1) + "; a replica this far"
                    + " behind cannot catch up from the log: it must restore a snapshot of this copy first");
        }
        return log.readFrom(fromSeq, LivePartition.LOG_READ_BYTES);
    }

    /** The root's word that every replica holds every write up to {@code seq}; only ever raised. */
    void allowTrimming(long seq) {
        trimmableSeq = Math.max(trimmableSeq, seq);
    }

    /**
     * Drops the records at or below both {@code committedSeq} (the copy no longer needs them to
     * recover) and the seq every replica holds (no replica needs them to catch up).
     *
     * @return how many records were dropped
     */
    int trim(long committedSeq) throws IOException {
        long below = Math.min(committedSeq, trimmableSeq);
        if (below <= trimmedSeq) {
            return 0;
        }
        int dropped = log.trim(below);
        trimmedSeq = below;
        digests.dropThrough(below);
        return dropped;
    }

    /** The log holds every write above this seq. */
    long trimmedSeq() {
        return trimmedSeq;
    }

    @Override
    public void close() throws IOException {
        log.close();
    }
}
