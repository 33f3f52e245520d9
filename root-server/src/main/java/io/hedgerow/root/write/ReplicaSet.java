package io.hedgerow.root.write;

import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The replicas of one partition and what the root knows of each: in sync or not, the seq up to which
 * it is known to hold every write, and why it left the in-sync set. The primary is the first in-sync
 * replica in order (the assignment's, then copies in the order they were added).
 *
 * <p><b>Knowing the replicas at start.</b> A root knows nothing of writes made before it started: a
 * replica may have missed some (it was down when the last root wrote). So the partition's first step
 * is to ask every replica its last seq and {@link #reconcile} on the answers: the most advanced ones
 * stay in sync, the others leave the set and are caught up from the most advanced. Without that, a
 * replica that missed writes could become primary and number new writes below what another replica
 * holds. Only every replica's answer decides: one that does not answer may be the only one that
 * holds the last acknowledged writes, so until each has answered the partition takes no writes (it
 * is not reconciled) rather than trust the most advanced of those that did.
 *
 * <p><b>Leaving the set.</b> A replica leaves the in-sync set when it fails a write, before the write
 * is acknowledged without it; except the last one in sync: it alone is known to hold every
 * acknowledged write, so it stays (as Elasticsearch keeps the last in-sync allocation id) and the
 * partition's writes are refused until it answers again. Promotion is only ever from the set; no
 * replica that missed writes ever becomes primary. A replica that answers {@code diverged:} (it holds
 * another op under a seq, or is ahead of the primary) leaves the set and is marked for a rebuild from a
 * snapshot of the primary's copy ({@link #needsRebuild}), never simply caught up.
 *
 * <p><b>Copies come and go.</b> The placement adds copies of a partition (re-replication, a hot
 * partition's extra copy, a move) and retires them ({@link #retain}). A copy added joins out of sync,
 * to be caught up like any replica that missed writes before it serves; a copy retired leaves the
 * set at once, unless it is the last one in sync (it then stays until another is: it alone holds
 * every acknowledged write).
 *
 * <p><b>With a coordination store</b> ({@code --zk}) the primary, its term and the in-sync set are
 * the stored ones ({@link #apply}): at start they are read rather than decided from whichever
 * replicas answer, and the writer changes them only by compare-and-set in the store before it acts
 * (it leaves {@link #markOutOfSync} and its last-in-sync rule to the root without a store, and
 * applies what the store answers). The primary is then the stored primary, not the first in sync,
 * and every request carries the stored term, which the leaves check.
 *
 * <p>A replica out of the set is marked in {@link StaleReplicas}, so that searches read it only when
 * its partition has no other replica.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every method holds this object's monitor, and
 * none calls out, so callers may hold their own lock around a call. A {@link Replica} removed from
 * the set is inert: marking it in or out of sync changes nothing.
 */
final class ReplicaSet {
    private static final System.Logger LOG = System.getLogger(ReplicaSet.class.getName());
    static final String NEW_COPY = "a new copy: catching up from the primary before it serves";

    /** One replica of the partition; its mutable fields are guarded by the set's monitor. */
    static final class Replica {
        final WriteLink link;
        /** Its leaf, by index in the cluster (for {@link StaleReplicas} and the placement). */
        final int leaf;
        /** Its name in the coordination store's in-sync sets ({@link StoredState#nodeOf}). */
        final NodeId node;
        private boolean inSync;
        private long knownSeq = -1;
        /**
         * The highest seq this root saw acknowledged (or caught up) while the replica was in sync: it
         * holds the primary's ops up to it. -1: unknown. Never lowered by what the replica says later,
         * as its ops above it may be a deposed primary's, never acknowledged.
         */
        private long confirmedSeq = -1;
        private String problem;
        /** It diverged from the primary's history: only a snapshot of the primary's copy brings it back. */
        private boolean rebuild;
        /** The term in which its leaf refused a rebuild (REBUILD_REFUSED); -1: none. */
        private long rebuildRefusedTerm = -1;

        private Replica(WriteLink link, int leaf, boolean inSync, String problem) {
            this.link = link;
            this.leaf = leaf;
            this.node = StoredState.nodeOf(link.address());
            this.inSync = inSync;
            this.problem = problem;
        }

        LeafAddress address() {
            return link.address();
        }
    }

    private final int partition;
    private final StaleReplicas stale;
    private final List<Replica> members = new ArrayList<>();
    private boolean reconciled;
    private final CompletableFuture<Void> whenReconciled = new CompletableFuture<>();
    /** The stored primary, when it is one of these replicas; read only while {@link #stored} is set. */
    private Replica storedPrimary;
    /**
     * The stored state last applied ({@link #apply}); null before, and always without a store. Once
     * set, the primary and the set are the store's, and every request carries its term.
     */
    private PartitionState stored;

    /** The partition's replicas at start, each on the leaf of the same index in {@code leaves}, all in sync. */
    ReplicaSet(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale) {
        if (leaves.length != links.length) {
            throw new IllegalArgumentException("leaves: " + leaves.length + ", links: " + links.length
                    + " (expected: one leaf per replica)");
        }
        this.partition = partition;
        this.stale = stale;
        for (int r = 0; r < links.length; r++) {
            members.add(new Replica(links[r], leaves[r], true, null));
        }
    }

    synchronized int size() {
        return members.size();
    }

    /** The replicas now, in order (a copy: the set may change after). */
    synchronized List<Replica> members() {
        return List.copyOf(members);
    }

    /**
     * Makes the set the copies on {@code leaves}, in that order: a copy not in the set joins it out
     * of sync (to be caught up), one not in {@code leaves} leaves it, unless it is the last in sync.
     *
     * @param links each leaf's write link
     * @return whether a copy joined (so a catch-up is due)
     */
    synchronized boolean retain(int[] leaves, IntFunction<WriteLink> links) {
        boolean joined = false;
        List<Replica> next = new ArrayList<>(leaves.length);
        for (int leaf : leaves) {
            Replica replica = member(leaf);
            if (replica == null) {
                replica = new Replica(links.apply(leaf), leaf, false, NEW_COPY);
                stale.mark(partition, leaf, true);
                joined = true;
                LOG.log(System.Logger.Level.INFO, "partition {0}: a new copy on leaf {1} joins the replicas, out of"
                        + " sync until caught up", partition, replica.address());
            }
            next.add(replica);
        }
        boolean nextHasInSync = next.stream().anyMatch(r -> r.inSync);
        for (Replica replica : members) {
            if (next.contains(replica)) {
                continue;
            }
            if (replica.inSync && !nextHasInSync) {
                // It alone holds every acknowledged write: it goes once another copy is in sync.
                next.add(replica);
                nextHasInSync = true;
                continue;
            }
            stale.mark(partition, replica.leaf, false);
            LOG.log(System.Logger.Level.INFO, "partition {0}: the copy on leaf {1} leaves the replicas", partition,
                    replica.address());
        }
        members.clear();
        members.addAll(next);
        return joined;
    }

    /** The member whose node id is {@code node}; null when none is. */
    synchronized Replica member(NodeId node) {
        for (Replica replica : members) {
            if (replica.node.equals(node)) {
                return replica;
            }
        }
        return null;
    }

    private Replica member(int leaf) {
        for (Replica replica : members) {
            if (replica.leaf == leaf) {
                return replica;
            }
        }
        return null;
    }

    synchronized boolean reconciled() {
        return reconciled;
    }

    /** Completes once {@link #reconcile} has run: until then the primary is not known. */
    CompletableFuture<Void> whenReconciled() {
        return whenReconciled;
    }

    synchronized boolean contains(Replica replica) {
        return members.contains(replica);
    }

    synchronized boolean inSync(Replica replica) {
        return replica.inSync && members.contains(replica);
    }

    /** Whether the replica on {@code leaf} is in sync; true when no replica is on it. */
    synchronized boolean inSync(LeafAddress leaf) {
        for (Replica replica : members) {
            if (replica.address().equals(leaf)) {
                return replica.inSync;
            }
        }
        return true;
    }

    /** Whether {@code leaf} (by index) holds a replica of the partition and it is in sync. */
    synchronized boolean memberInSync(int leaf) {
        Replica replica = member(leaf);
        return replica != null && replica.inSync;
    }

    /**
     * With a coordination store: the in-sync replica to promote when the stored primary's copy has
     * left these replicas (the placement retired it, see {@link #retain}) while another holds every
     * acknowledged write; null otherwise (no store, the primary still a member, a primary on a leaf
     * this root was not given, or none in sync).
     */
    synchronized Replica successorOfRetiredPrimary() {
        if (stored == null || storedPrimary == null || members.contains(storedPrimary)) {
            return null;
        }
        for (Replica replica : members) {
            if (replica.inSync) {
                return replica;
            }
        }
        return null;
    }

    /**
     * Whether, with a coordination store, the copy on {@code leaf} is the stored primary (in sync or
     * not): the placement leaves such a copy where it is when it fills a joined leaf, since the stored
     * primary hands over only when a write comes. Without a store, never: the primary is then the first
     * in-sync copy, and a moved one is simply succeeded.
     */
    synchronized boolean primaryAt(int leaf) {
        return stored != null && storedPrimary != null && storedPrimary.leaf == leaf;
    }

    synchronized List<Replica> inSyncNow() {
        return members.stream().filter(r -> r.inSync).toList();
    }

    /**
     * The primary: with a coordination store, the stored primary while it is one of these replicas and
     * in sync (null otherwise: the writer promotes through the store or refuses); without one, the
     * first replica in sync, or null.
     */
    synchronized Replica primary() {
        if (stored != null) {
            return storedPrimary != null && storedPrimary.inSync && members.contains(storedPrimary) ? storedPrimary
                    : null;
        }
        for (Replica replica : members) {
            if (replica.inSync) {
                return replica;
            }
        }
        return null;
    }

    /**
     * Makes the stored state this set's: its term, its primary, and exactly the replicas in its in-sync
     * set in sync (one this root meant to rebuild too: the stored set is the truth); the set counts as
     * reconciled. Nodes of
     * the stored set that are none of these replicas are ignored (another root's leaves), so a root
     * whose leaves hold no stored in-sync copy has no primary and refuses writes.
     */
    synchronized void apply(PartitionState state) {
        if (state.partition() != partition) {
            throw new IllegalArgumentException("state.partition: " + state.partition() + " (expected: " + partition + ")");
        }
        if (stored == null || state.primaryTerm() != stored.primaryTerm() || !state.primary().equals(stored.primary())) {
            LOG.log(System.Logger.Level.INFO, "partition {0}: primary {1} in term {2}, in sync {3} (stored)", partition,
                    state.primary(), state.primaryTerm(), state.inSync());
        }
        for (Replica replica : members) {
            if (stored != null && !stored.isInSync(replica.node) && state.isInSync(replica.node)) {
                // Said by the root that stored it and by each that reads it: a copy that joined unseen
                // (durability seed 34) is what made a stale rebuild's damage hard to trace.
                LOG.log(System.Logger.Level.INFO, "partition {0}: replica on leaf {1} joins the in-sync set of term"
                        + " {2} (stored version {3})", partition, replica.address(), state.primaryTerm(), state.version());
            }
        }
        stored = state;
        storedPrimary = null;
        for (Replica replica : members) {
            if (state.isInSync(replica.node)) {
                if (!replica.inSync) {
                    // The store's word over what this root saw: a copy joins the stored set only once it
                    // caught up through the primary, and leaves it through the store before any write is
                    // acknowledged without it. A rebuild this root had planned (it saw the copy diverge
                    // before) would destroy acknowledged writes, and leaving it out of this root's copies
                    // would acknowledge writes it lacks.
                    replica.rebuild = false;
                    replica.inSync = true;
                    replica.problem = null;
                    stale.mark(partition, replica.leaf, false);
                }
                if (replica.node.equals(state.primary())) {
                    storedPrimary = replica;
                }
            } else if (replica.inSync || replica.problem == null) {
                leave(replica, "not in partition " + partition + "'s in-sync set " + state.inSync() + " of term "
                        + state.primaryTerm() + " in the coordination store: it may lack acknowledged writes");
            }
        }
        reconciled = true;
        whenReconciled.complete(null);
    }

    /** Whether the stored state has been applied ({@link #apply}). */
    synchronized boolean coordinated() {
        return stored != null;
    }

    /** The stored primary term (0: none, without a coordination store). */
    synchronized long term() {
        return stored == null ? 0 : stored.primaryTerm();
    }

    /**
     * The nodes of the stored in-sync set that are none of these replicas (leaves this root was not
     * given): a write this root acknowledges never reaches them, so they must leave the stored set
     * first. Empty without a store.
     */
    synchronized List<NodeId> storedInSyncElsewhere() {
        if (stored == null) {
            return List.of();
        }
        List<NodeId> elsewhere = new ArrayList<>(stored.inSync());
        for (Replica replica : members) {
            elsewhere.remove(replica.node);
        }
        return elsewhere;
    }

    /** Whether the stored state last applied names {@code replica} primary or in sync (false without a store). */
    synchronized boolean storedInSync(Replica replica) {
        return stored != null && stored.isInSync(replica.node);
    }

    /** The stored state last applied, or null. */
    synchronized PartitionState stored() {
        return stored;
    }

    synchronized int inSyncCount() {
        int count = 0;
        for (Replica replica : members) {
            count += replica.inSync ? 1 : 0;
        }
        return count;
    }

    /**
     * The replica failed a write: it leaves the in-sync set, unless it is the last one in sync (then
     * it stays, with the reason as its problem, and the caller refuses the write).
     *
     * @return whether it left the set (or was out of it already)
     */
    synchronized boolean markOutOfSync(Replica replica, String reason) {
        if (!members.contains(replica)) {
            return true;
        }
        if (replica.inSync && inSyncCount() == 1) {
            replica.problem = "the only replica in sync, unreachable: " + reason;
            return false;
        }
        leave(replica, reason);
        return true;
    }

    /**
     * The replica lost acknowledged writes (it answered a last seq below what was acknowledged, or
     * numbered new writes at or below it): it leaves the set even when it is the last in sync, as
     * no copy that lacks acknowledged writes may order new ones.
     */
    synchronized void markLost(Replica replica, String reason) {
        if (members.contains(replica)) {
            leave(replica, reason);
        }
    }

    /**
     * The replica answered {@code diverged:}: it leaves the set (the primary has every acknowledged
     * write; a diverged replica is never the primary's last in-sync copy in a batch, and if it was,
     * its history is not the acknowledged one) and is rebuilt from a snapshot of the primary's copy.
     */
    synchronized void markDiverged(Replica replica, String reason) {
        if (members.contains(replica)) {
            replica.rebuild = true;
            leave(replica, "diverged from the primary, to be rebuilt from a snapshot of its copy: " + reason);
        }
    }

    /** Whether the replica must be rebuilt from a snapshot before it can be caught up ({@link #markDiverged}). */
    synchronized boolean needsRebuild(Replica replica) {
        return replica.rebuild;
    }

    /**
     * The replica's leaf refused a rebuild of its copy in {@code term} ({@code REBUILD_REFUSED}): it
     * took writes as the primary of that term or a newer one, so no rebuild of it is asked again until
     * the stored term is newer ({@link #rebuildRefusedInThisTerm}). The reason is its problem (logged
     * when new); it is neither taken out of anything nor marked failed. A {@code term} of -1 records
     * nothing for the term (a refusal of that attempt only), just the reason.
     */
    synchronized void rebuildRefused(Replica replica, long term, String reason) {
        if (!members.contains(replica)) {
            return;
        }
        replica.rebuildRefusedTerm = Math.max(replica.rebuildRefusedTerm, term);
        if (!reason.equals(replica.problem)) {
            LOG.log(System.Logger.Level.WARNING, "partition {0}: replica on leaf {1}: {2}", partition,
                    replica.address(), reason);
        }
        replica.problem = reason;
    }

    /** Whether the replica's leaf refused a rebuild in the current stored term or a newer one ({@link #rebuildRefused}). */
    synchronized boolean rebuildRefusedInThisTerm(Replica replica) {
        return replica.rebuildRefusedTerm >= 0 && term() <= replica.rebuildRefusedTerm;
    }

    /** The replica's copy was replaced by a snapshot of the primary's: its diverged history is gone. */
    synchronized void rebuilt(Replica replica) {
        replica.rebuild = false;
    }

    private void leave(Replica replica, String reason) {
        replica.problem = reason;
        if (replica.inSync) {
            replica.inSync = false;
            stale.mark(partition, replica.leaf, true);
            LOG.log(System.Logger.Level.WARNING, "partition {0}: replica on leaf {1} leaves the in-sync set: {2}",
                    partition, replica.address(), reason);
        }
    }

    synchronized void markInSync(Replica replica, long lastSeq) {
        if (!members.contains(replica) || replica.rebuild) {
            return;
        }
        replica.knownSeq = Math.max(replica.knownSeq, lastSeq);
        replica.confirmedSeq = Math.max(replica.confirmedSeq, lastSeq);
        replica.problem = null;
        if (!replica.inSync) {
            replica.inSync = true;
            stale.mark(partition, replica.leaf, false);
            LOG.log(System.Logger.Level.INFO, "partition {0}: replica on leaf {1} is in sync again at seq {2}",
                    partition, replica.address(), lastSeq);
        }
    }

    /** Catching the replica up failed; logged when the reason is new (it is retried every second). */
    synchronized void catchUpFailed(Replica replica, String reason) {
        if (!members.contains(replica)) {
            return;
        }
        if (!reason.equals(replica.problem)) {
            LOG.log(System.Logger.Level.WARNING, "partition {0}: catching up the replica on leaf {1} failed (retried"
                    + " every second): {2}", partition, replica.address(), reason);
        }
        replica.problem = reason;
    }

    /** Every in-sync replica now holds every write up to {@code seq}. */
    synchronized void acknowledged(long seq) {
        for (Replica replica : members) {
            if (replica.inSync) {
                replica.knownSeq = Math.max(replica.knownSeq, seq);
                replica.confirmedSeq = Math.max(replica.confirmedSeq, seq);
                replica.problem = null; // it answered: whatever it had is over
            }
        }
    }

    /** The replica said its last seq (-1: it did not answer). */
    synchronized void observed(Replica replica, long lastSeq) {
        if (lastSeq >= 0 && !replica.inSync) {
            // An out-of-sync replica may hold writes past what it holds contiguously only after a
            // failed primary logged them; its last seq is what it will be caught up from.
            replica.knownSeq = lastSeq;
        }
    }

    /**
     * Where a catch-up of the replica, which says it holds writes up to {@code lastSeq}, starts. With
     * a coordination store, from what it held while in sync ({@code confirmedSeq}) when that is lower:
     * ops above it may be a deposed primary's that were never acknowledged (its root missed a
     * promotion), and the source's ops under those seqs, sent again, are compared with them by the
     * leaf, so a diverged tail answers {@code diverged:} and is rebuilt rather than kept. Otherwise
     * (or when unknown, as after a root restart) from {@code lastSeq}.
     */
    synchronized long catchUpFrom(Replica replica, long lastSeq) {
        return stored != null && replica.confirmedSeq >= 0 && replica.confirmedSeq < lastSeq ? replica.confirmedSeq
                : lastSeq;
    }

    /**
     * The first comparison of the replicas' last seqs since the root started. Only when every
     * replica in the set answered: the most advanced stay in sync, every other leaves the set (to be
     * caught up). When one did not answer nothing is decided (it may alone hold the last
     * acknowledged writes): the partition stays unreconciled, takes no writes, and is asked again.
     *
     * @param probed   the replicas asked
     * @param lastSeqs each one's last seq, -1 for one that did not answer
     * @return whether the set is reconciled now
     */
    synchronized boolean reconcile(List<Replica> probed, long[] lastSeqs) {
        long most = -1;
        List<String> silent = new ArrayList<>();
        for (int r = 0; r < probed.size(); r++) {
            if (probed.get(r).inSync) {
                most = Math.max(most, lastSeqs[r]);
            }
            if (lastSeqs[r] < 0 && members.contains(probed.get(r)) && probed.get(r).inSync) {
                silent.add(probed.get(r).address().toString());
            }
        }
        if (!silent.isEmpty()) {
            for (int r = 0; r < probed.size(); r++) {
                Replica replica = probed.get(r);
                replica.problem = lastSeqs[r] < 0
                        ? "did not answer since the root started: the partition takes no writes until every replica"
                                + " has said its last seq (this one may hold acknowledged writes the others lack)"
                        : "waiting for " + String.join(", ", silent) + " to answer before the replicas are compared";
                if (lastSeqs[r] >= 0) {
                    replica.knownSeq = lastSeqs[r];
                }
            }
            return false;
        }
        for (int r = 0; r < probed.size(); r++) {
            Replica replica = probed.get(r);
            if (lastSeqs[r] < most) {
                leave(replica, "holds writes up to seq " + lastSeqs[r] + " of " + most
                        + " (it missed writes before this root started)");
            } else if (replica.inSync) {
                replica.problem = null;
            }
            if (lastSeqs[r] >= 0) {
                replica.knownSeq = lastSeqs[r];
            }
        }
        reconciled = true;
        whenReconciled.complete(null);
        return true;
    }

    /**
     * The seq up to which every replica's log may be trimmed: every replica is known to hold every
     * write up to it, except replicas more than {@code retainOps} behind the most advanced (or
     * unknown, as a copy just added), which then catch up from a snapshot instead.
     */
    synchronized long trimmableSeq(long retainOps) {
        long least = Long.MAX_VALUE;
        long most = 0;
        for (Replica replica : members) {
            least = Math.min(least, Math.max(replica.knownSeq, 0));
            most = Math.max(most, replica.knownSeq);
        }
        return Math.max(least, most - retainOps);
    }

    /**
     * A request to the partition's replicas, with the seq their logs may be trimmed to ({@link #trimmableSeq})
     * and the stored term with the primary the store names in it (one read of the stored state, so the
     * two always belong together: leaves log the pair, {@code WriteRequest.primary_node}).
     */
    synchronized WriteRequest.Builder request(long retainOps) {
        WriteRequest.Builder request = WriteRequest.newBuilder().setPartition(partition)
                .setTrimmableSeq(trimmableSeq(retainOps));
        if (stored != null) {
            request.setPrimaryTerm(stored.primaryTerm()).setPrimaryNode(stored.primary().value());
        }
        return request;
    }

    synchronized List<ReplicaStatus> status() {
        Replica primary = primary();
        List<ReplicaStatus> replicas = new ArrayList<>(members.size());
        for (Replica replica : members) {
            replicas.add(new ReplicaStatus(replica.address(), replica == primary, replica.inSync, replica.knownSeq,
                    replica.problem));
        }
        return replicas;
    }
}
