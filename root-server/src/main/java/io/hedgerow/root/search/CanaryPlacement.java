package io.hedgerow.root.search;

import io.hedgerow.root.cluster.PartitionAssignment;
import java.util.function.IntPredicate;

/**
 * Where a second canary goes (a backup, or a second opinion after a lost connection or a slow
 * leaf), so that a real query of death costs as little as possible: a ready leaf that has had no
 * canary of this query, and on it a partition not asked yet (so the second canary is that
 * partition's first copy and costs no extra leaf request). Best is a leaf that shares no partition
 * with the leaves the canary went to: were both to crash, no partition would lose both its
 * replicas. Failing that, a partition none of whose other replicas is on those leaves (it keeps a
 * replica whatever happens), on the leaf sharing fewest partitions with them. Failing that (two
 * leaves holding every partition), any partition: the second opinion is still worth more than
 * blocklisting on one leaf's word. Ties go to the leaf with fewest sub-requests outstanding.
 * Pure.
 */
final class CanaryPlacement {
    private CanaryPlacement() {
    }

    /** A partition and the leaf to send it to. */
    record Choice(int partition, int leaf) {
    }

    /**
     * @param avoidLeaves the leaves that have had a canary of this query (or lost one)
     * @param fresh       true for a partition not asked yet
     * @return the choice, or null when no ready leaf outside {@code avoidLeaves} holds a fresh partition
     */
    static Choice choose(PartitionAssignment assignment, DispatchPolicy.ReplicaView view, LeafSet avoidLeaves,
            IntPredicate fresh) {
        Choice best = null;
        long bestScore = Long.MAX_VALUE;
        for (int leaf = 0; leaf < assignment.leaves(); leaf++) {
            if (avoidLeaves.contains(leaf) || !view.isReady(leaf)) {
                continue;
            }
            int shared = 0;
            int safe = -1;
            int any = -1;
            for (int partition : assignment.partitionsOf(leaf)) {
                boolean sharesAReplica = hasReplicaIn(assignment, partition, leaf, avoidLeaves);
                if (sharesAReplica) {
                    shared++;
                }
                if (!fresh.test(partition)) {
                    continue;
                }
                if (!sharesAReplica && safe < 0) {
                    safe = partition;
                }
                if (any < 0) {
                    any = partition;
                }
            }
            if (any < 0) {
                continue;
            }
            long rank = shared == 0 ? 0 : safe >= 0 ? 1 + shared : 1_000 + shared;
            long score = (rank << 20) + Math.min(view.outstanding(leaf), (1 << 20) - 1);
            if (score < bestScore) {
                bestScore = score;
                best = new Choice(safe >= 0 ? safe : any, leaf);
            }
        }
        return best;
    }

    /** True when a replica of {@code partition} other than the one on {@code leaf} is on one of {@code leaves}. */
    private static boolean hasReplicaIn(PartitionAssignment assignment, int partition, int leaf, LeafSet leaves) {
        for (int replica : assignment.replicasOf(partition)) {
            if (replica != leaf && leaves.contains(replica)) {
                return true;
            }
        }
        return false;
    }
}
