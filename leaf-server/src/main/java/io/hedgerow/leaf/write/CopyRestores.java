package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The receiving side of file-based recovery at one leaf: a RESTORE replaces this leaf's copy of a
 * partition with a snapshot of another leaf's copy (the primary's, {@link LeafSnapshots}), pulled over
 * the wire ({@link PeerRecovery}) into {@code <leaf dir>/recovery/partition-NNNN/}, which outlives a
 * failed attempt so the next one resumes. The copy being replaced serves (and takes writes) until the
 * pull is done; then {@link Copies#replace} swaps it under the leaf's and the copy's locks.
 *
 * <p><b>No rebuild over a primary.</b> A RESTORE that carries a term is refused ({@link RebuildRefused},
 * nothing done) when the copy took writes as the partition's primary in that term or a newer one
 * ({@link PrimaryTerms#ROLE_FILE}, recorded by the write path): the primary of a term holds every
 * write acknowledged in it and never leaves the in-sync set in that term, so only a root with a stale
 * view asks that. Checked before the pull and again, under the locks, before the swap. Nor over a
 * copy fed since the root decided: refused when the copy's last seq differs from the seq the root
 * decided on ({@code expected_last_seq}, or the seq on arrival from an older root), checked on
 * arrival and again under the copy's lock before the swap, since it may then hold acknowledged writes
 * the snapshot lacks; pulled files are deleted. Each refusal names its reason
 * ({@link RebuildRefusal}): the root asks no rebuild over a primary again in the term, and asks again
 * after a backoff over a fed copy.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; one RESTORE of a partition at a time (a second
 * one is refused, not run beside it). Restores run on their own thread, never a write thread.
 */
final class CopyRestores {
    private static final System.Logger LOG = System.getLogger(CopyRestores.class.getName());
    /** In a leaf's directory: the snapshots it is pulling from other leaves, kept to resume a failed pull. */
    static final String RECOVERY_DIR = "recovery";
    /** The leaf's copies, as a restore finds and replaces one ({@link LiveWrites} keeps them). */
    interface Copies {
        /** The leaf's directory; before it claimed one, the reason it takes no writes. */
        Path leafDir() throws IOException;

        /** Whether the partition has a copy on disk (open or not). */
        boolean onDisk(int partition);

        /**
         * The partition's copy, opened if it is on disk and not open yet; null when there is none or
         * it cannot be opened (then it takes no writes either, and a restore is what may mend it).
         */
        LivePartition openQuietly(int partition);

        /**
         * Holding the lock that guards which copy is open, then the open copy's own (which every write
         * to it takes), runs {@code check} on the open copy (null if none) and, if it passes, closes that
         * copy and opens in its place the index pulled into {@code staging}.
         */
        LivePartition replace(int partition, Path staging, SwapCheck check) throws IOException;
    }

    /** A check run under the swap's locks, on the copy open then (null if none). */
    interface SwapCheck {
        void check(LivePartition open) throws IOException;
    }

    /** A RESTORE this leaf will not run ({@code REBUILD_REFUSED}), and why; nothing was done. */
    static final class RebuildRefused extends IOException {
        private final RebuildRefusal reason;

        RebuildRefused(RebuildRefusal reason, String message) {
            super(message);
            this.reason = reason;
        }

        /** Why, for the root ({@code WriteResponse.rebuild_refusal}). */
        RebuildRefusal reason() {
            return reason;
        }

        /**
         * A refusal over a copy fed since the root's decision. Its error still begins with the words that
         * roots from before {@code rebuild_refusal} look for, so that they too ask again in the term.
         */
        static RebuildRefused fed(RebuildRefusal reason, String detail) {
            return new RebuildRefused(reason, "rebuild refused, fed during the pull: " + detail);
        }
    }

    private final Copies copies;
    /** The highest term each copy took writes in as the partition's primary (shared with the write path). */
    private final PrimaryTerms primaryIn;
    /** Partitions a restore is pulling now: a second RESTORE of one is refused, not run beside it. */
    private final Set<Integer> restoring = ConcurrentHashMap.newKeySet();
    private volatile PeerFiles peerFiles = PeerFiles.NONE;

    CopyRestores(Copies copies, PrimaryTerms primaryIn) {
        this.copies = copies;
        this.primaryIn = primaryIn;
    }

    /** Pulls snapshots of other leaves through {@code peers} from now on. */
    void peers(PeerFiles peers) {
        this.peerFiles = peers;
    }

    /**
     * Replaces this leaf's copy of the request's partition with the snapshot it names of the leaf at
     * its {@code source_address} (the primary), pulled over the wire ({@link PeerRecovery}), and serves it: the
     * root does this to a copy too far behind the primary's log, then replays the log above the
     * snapshot. What this copy held and the snapshot lacks was never acknowledged (the root restores
     * only copies out of its in-sync set, from the primary, which holds every acknowledged write), so
     * it is dropped. The copy being replaced serves (and takes writes) until the pull is done. Refused
     * ({@link RebuildRefused}) when the copy is the primary of the request's term or a newer one, and
     * when its last seq differs from the seq the root decided on ({@code expected_last_seq}, or the seq
     * on arrival from an older root); both checked on arrival and again under the copy's lock before
     * the swap ({@link #checkUnchanged}).
     */
    LivePartition restore(WriteRequest request) throws IOException {
        int partition = request.getPartition();
        String name = request.getSnapshot();
        String source = request.getSourceAddress();
        Path leafDir = copies.leafDir();
        checkRebuildable(leafDir, request);
        LeafSnapshots.checkName(partition, name);
        if (source.isEmpty()) {
            throw new IOException("a RESTORE of snapshot " + name + " names no source leaf (expected: source_address,"
                    + " host:port of the leaf that made the snapshot)");
        }
        if (!restoring.add(partition)) {
            throw new IOException("partition " + partition + " is being restored already (expected: one RESTORE at a"
                    + " time; ask again when it is done)");
        }
        try {
            Path target = LiveWrites.partitionDir(leafDir, partition);
            Path staging = leafDir.resolve(RECOVERY_DIR).resolve(target.getFileName());
            // The copy as the RESTORE found it: the root decided on this view, or an older one. None: seq 0
            // (a copy made now starts from the build); one that cannot be opened takes no writes: -1.
            LivePartition atStart = copies.openQuietly(partition);
            long seqAtArrival = atStart != null ? atStart.lastSeq() : copies.onDisk(partition) ? -1 : 0;
            // The view the root decided on: its probe of this copy's seq. Fed since (another root's
            // catch-up, perhaps stored in sync by now), the copy may hold writes the snapshot lacks.
            long seqBefore = request.hasExpectedLastSeq() ? request.getExpectedLastSeq() : seqAtArrival;
            if (seqAtArrival != seqBefore) {
                throw RebuildRefused.fed(RebuildRefusal.FED_SINCE_DECISION, "partition " + partition
                        + " here is at seq " + seqAtArrival + ", not at the seq " + seqBefore
                        + " the RESTORE of snapshot " + name + " was decided on"
                        + " (expected: equal): it was fed since, so the decision no longer holds; nothing was pulled");
            }
            try (PeerFiles.Session session = peerFiles.open(source)) {
                new PeerRecovery(session, WalFiles.SYSTEM).pull(partition, name, staging,
                        target.resolve(LivePartition.INDEX_DIR));
            }
            // Under the copy's own lock, which every write to it takes: none lands between the checks and
            // the swap (one still waiting for that lock then finds the old copy closed and fails).
            LivePartition restored = copies.replace(partition, staging, old -> {
                try {
                    // Again: the copy may have become a primary while the pull ran (minutes).
                    checkRebuildable(leafDir, request);
                    checkUnchanged(request, seqBefore, atStart, old);
                } catch (RebuildRefused refused) {
                    // Pulled for a decision that no longer holds: not kept for a resume either.
                    PartitionStore.deleteTree(staging);
                    throw refused;
                }
            });
            LOG.log(System.Logger.Level.INFO, "partition {0} restored from snapshot {1} of leaf {2} (last seq {3})",
                    partition, name, source, restored.lastSeq());
            return restored;
        } finally {
            restoring.remove(partition);
        }
    }

    /**
     * Refuses the swap when the copy's last seq, under the swap's locks, differs from {@code seqBefore},
     * the seq the root decided on (which the copy held on arrival): it took writes while the snapshot
     * was pulled. Only a copy a primary feeds takes writes (one behind refuses them, with a gap): it is
     * being caught up by the log or kept in sync, perhaps by another root, and may already be in the
     * stored in-sync set, holding acknowledged writes the snapshot lacks. The RESTORE was decided on an
     * older view. Writes that leave the last seq as it was (ops it holds already, refused ones) change
     * nothing the snapshot would drop.
     */
    private static void checkUnchanged(WriteRequest request, long seqBefore, LivePartition atStart, LivePartition now)
            throws RebuildRefused {
        long seqNow = seqBefore;
        // The copy open at the start (closed meanwhile if the partition was unassigned) and the one open now.
        if (atStart != null && atStart.lastSeq() != seqBefore) {
            seqNow = atStart.lastSeq();
        }
        if (now != null && now.lastSeq() != seqBefore) {
            seqNow = now.lastSeq();
        }
        if (seqNow != seqBefore) {
            throw RebuildRefused.fed(RebuildRefusal.FED_DURING_PULL, "partition " + request.getPartition()
                    + " here took writes while snapshot " + request.getSnapshot() + " was pulled from "
                    + request.getSourceAddress()
                    + ": its last seq went from " + seqBefore + " to " + seqNow + " (expected: " + seqBefore
                    + ", unchanged until the swap); a primary is catching it up or keeping it in sync, so the RESTORE"
                    + " (term " + request.getPrimaryTerm() + ") was decided on an older view; the pulled files are"
                    + " deleted");
        }
    }

    /**
     * Refuses a RESTORE of this leaf's copy when the copy took writes as the partition's primary in
     * the request's term or a newer one (recorded by the write path): it holds every write acknowledged in
     * that term, and only a newer term (a promotion deposed it) may rebuild it. A request without a
     * term (0) is not checked.
     */
    private void checkRebuildable(Path leafDir, WriteRequest request) throws IOException {
        int partition = request.getPartition();
        long primaryTerm = primaryIn.held(partition, LiveWrites.partitionDir(leafDir, partition));
        // Term 0 (a root without a coordination store) is not checked, as the term fence does not check it.
        if (request.getPrimaryTerm() > 0 && primaryTerm > 0 && request.getPrimaryTerm() <= primaryTerm) {
            throw new RebuildRefused(RebuildRefusal.PRIMARY_IN_TERM, "rebuild refused: partition " + partition
                    + " here is the primary of term " + primaryTerm + " (it took writes as primary in that term),"
                    + " and the RESTORE of snapshot "
                    + request.getSnapshot() + " from " + request.getSourceAddress() + " carries term "
                    + request.getPrimaryTerm() + " (expected: > " + primaryTerm + ", the term of a promotion that"
                    + " deposed this copy); the requesting root's view of the partition is stale");
        }
    }
}
