package io.hedgerow.root.write;

import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The replicas of one partition and what the root knows of each: in sync or not, the seq up to which
 * it is known to hold every write, and why it left the in-sync set. The primary is the first in-sync
 * replica in assignment order.
 *
 * <p><b>Knowing the replicas at start.</b> A root knows nothing of writes made before it started: a
 * replica may have missed some (it was down when the last root wrote). So the partition's first step
 * is to ask every replica its last seq and {@link #reconcile} on the answers: the most advanced ones
 * stay in sync, the others (and the unreachable) leave the set and are caught up from the most
 * advanced. Without that, a replica that missed writes could become primary and number new writes
 * below what another replica holds, which that replica would then skip as already held.
 *
 * <p>A replica out of the set is marked in {@link StaleReplicas}, so that searches read it only when
 * its partition has no other replica.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every method holds this object's monitor, and
 * none calls out, so callers may hold their own lock around a call.
 */
final class ReplicaSet {
    private static final System.Logger LOG = System.getLogger(ReplicaSet.class.getName());

    private final int partition;
    private final WriteLink[] links;
    /** Each replica's leaf, by its index in the cluster (for {@link #stale}). */
    private final int[] leaves;
    private final StaleReplicas stale;
    private final boolean[] inSync;
    private final long[] knownSeq;
    private final String[] problem;
    private boolean reconciled;
    private final CompletableFuture<Void> whenReconciled = new CompletableFuture<>();

    ReplicaSet(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale) {
        if (leaves.length != links.length) {
            throw new IllegalArgumentException("leaves: " + leaves.length + ", links: " + links.length
                    + " (expected: one leaf per replica)");
        }
        this.partition = partition;
        this.links = links.clone();
        this.leaves = leaves.clone();
        this.stale = stale;
        this.inSync = new boolean[links.length];
        this.knownSeq = new long[links.length];
        this.problem = new String[links.length];
        Arrays.fill(inSync, true);
        Arrays.fill(knownSeq, -1);
    }

    int size() {
        return links.length;
    }

    /** The highest last seq any replica is known to have: above 0 once the partition took live writes. */
    synchronized long highestKnownSeq() {
        long highest = -1;
        for (long seq : knownSeq) {
            highest = Math.max(highest, seq);
        }
        return highest;
    }

    WriteLink link(int replica) {
        return links[replica];
    }

    synchronized boolean reconciled() {
        return reconciled;
    }

    /** Completes once {@link #reconcile} has run: until then the primary is not known. */
    CompletableFuture<Void> whenReconciled() {
        return whenReconciled;
    }

    synchronized boolean inSync(int replica) {
        return inSync[replica];
    }

    /** Whether the replica on {@code leaf} is in sync; true when no replica is on it. */
    synchronized boolean inSync(LeafAddress leaf) {
        for (int r = 0; r < links.length; r++) {
            if (links[r].address().equals(leaf)) {
                return inSync[r];
            }
        }
        return true;
    }

    synchronized boolean[] inSyncNow() {
        return inSync.clone();
    }

    synchronized int firstInSync() {
        for (int r = 0; r < inSync.length; r++) {
            if (inSync[r]) {
                return r;
            }
        }
        return -1;
    }

    synchronized int inSyncCount() {
        int count = 0;
        for (boolean in : inSync) {
            count += in ? 1 : 0;
        }
        return count;
    }

    synchronized void markOutOfSync(int replica, String reason) {
        problem[replica] = reason;
        if (inSync[replica]) {
            inSync[replica] = false;
            stale.mark(partition, leaves[replica], true);
            LOG.log(System.Logger.Level.WARNING, "partition {0}: replica on leaf {1} leaves the in-sync set: {2}",
                    partition, links[replica].address(), reason);
        }
    }

    synchronized void markInSync(int replica, long lastSeq) {
        knownSeq[replica] = Math.max(knownSeq[replica], lastSeq);
        problem[replica] = null;
        if (!inSync[replica]) {
            inSync[replica] = true;
            stale.mark(partition, leaves[replica], false);
            LOG.log(System.Logger.Level.INFO, "partition {0}: replica on leaf {1} is in sync again at seq {2}",
                    partition, links[replica].address(), lastSeq);
        }
    }

    /** Catching the replica up failed; logged when the reason is new (it is retried every second). */
    synchronized void catchUpFailed(int replica, String reason) {
        if (!reason.equals(problem[replica])) {
            LOG.log(System.Logger.Level.WARNING, "partition {0}: catching up the replica on leaf {1} failed (retried"
                    + " every second): {2}", partition, links[replica].address(), reason);
        }
        problem[replica] = reason;
    }

    /** Every in-sync replica now holds every write up to {@code seq}. */
    synchronized void acknowledged(long seq) {
        for (int r = 0; r < links.length; r++) {
            if (inSync[r]) {
                knownSeq[r] = Math.max(knownSeq[r], seq);
            }
        }
    }

    /** The replica said its last seq (-1: it did not answer). */
    synchronized void observed(int replica, long lastSeq) {
        if (lastSeq >= 0 && !inSync[replica]) {
            // An out-of-sync replica may hold writes past what it holds contiguously only after a
            // failed primary logged them; its last seq is what it will be caught up from.
            knownSeq[replica] = lastSeq;
        }
    }

    /**
     * The first comparison of the replicas' last seqs since the root started: the most advanced
     * reachable ones stay in sync, every other leaves the set (to be caught up). With no replica
     * reachable all leave it, and the next catch-up picks the most advanced that answers.
     *
     * @param lastSeqs each replica's last seq, -1 for one that did not answer
     */
    synchronized void reconcile(long[] lastSeqs) {
        long most = -1;
        for (long seq : lastSeqs) {
            most = Math.max(most, seq);
        }
        for (int r = 0; r < links.length; r++) {
            if (lastSeqs[r] < 0) {
                markOutOfSync(r, "did not answer when the root started");
            } else if (lastSeqs[r] < most) {
                markOutOfSync(r, "holds writes up to seq " + lastSeqs[r] + " of " + most
                        + " (it missed writes before this root started)");
            }
            if (lastSeqs[r] >= 0) {
                knownSeq[r] = lastSeqs[r];
            }
        }
        reconciled = true;
        whenReconciled.complete(null);
    }

    /**
     * The seq up to which every replica's log may be trimmed: every replica is known to hold every
     * write up to it, except replicas more than {@code retainOps} behind the most advanced (or
     * unknown), which are given up on: they can no longer catch up from the log.
     */
    synchronized long trimmableSeq(long retainOps) {
        long least = Long.MAX_VALUE;
        long most = 0;
        for (long seq : knownSeq) {
            least = Math.min(least, Math.max(seq, 0));
            most = Math.max(most, seq);
        }
        return Math.max(least, most - retainOps);
    }

    synchronized List<ReplicaStatus> status() {
        int primary = firstInSync();
        List<ReplicaStatus> replicas = new ArrayList<>(links.length);
        for (int r = 0; r < links.length; r++) {
            replicas.add(new ReplicaStatus(links[r].address(), r == primary, inSync[r], knownSeq[r], problem[r]));
        }
        return replicas;
    }
}
