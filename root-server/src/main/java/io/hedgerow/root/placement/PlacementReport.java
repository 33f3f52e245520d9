package io.hedgerow.root.placement;

import java.util.List;

/**
 * What the placement controllers have done and are doing, for {@code /cluster} and {@code /metrics}:
 * a snapshot, immutable.
 *
 * @param copies              every copy that is not a partition's original, serving copy: those opening,
 *                            serving as extras and retiring, each with why it was made and since when
 * @param recent              the last moves that ended (served, failed or retired), oldest first
 * @param goneLeaves          leaves lost for longer than the grace period, whose partitions are re-replicated
 * @param underReplicated     partitions with fewer serving copies on live leaves than they should have
 * @param underReplicatedSinceNanos when a lost leaf left partitions short, on the root's ticker; -1: none short
 * @param lastFullReplicationNanos  how long the last return to full replication took, from the loss that
 *                            began it; -1: none yet
 * @param reReplications      copies started to replace a lost leaf's
 * @param hotCopies           extra copies started for hot partitions
 * @param rebalanceMoves      moves started by the rebalancer
 * @param opened              copies acknowledged open (of any kind)
 * @param failed              copies given up (an error, a timeout, their leaf lost while opening)
 * @param retired             copies taken out of service (surplus after a return, a cooled partition,
 *                            the source of a move)
 */
public record PlacementReport(
        List<CopyView> copies,
        List<Move> recent,
        List<Integer> goneLeaves,
        int underReplicated,
        long underReplicatedSinceNanos,
        long lastFullReplicationNanos,
        long reReplications,
        long hotCopies,
        long rebalanceMoves,
        long opened,
        long failed,
        long retired) {

    public PlacementReport {
        copies = List.copyOf(copies);
        recent = List.copyOf(recent);
        goneLeaves = List.copyOf(goneLeaves);
    }

    /** A copy in the plan: where, why, and in what state since when. */
    public record CopyView(int partition, int leaf, Placement.Reason reason, Placement.CopyState state,
            String why, long startedNanos, long sinceNanos) {
    }

    /** A move that ended: a copy that began serving, failed to open, or retired. */
    public record Move(int partition, int leaf, Placement.Reason reason, String outcome, String why,
            long startedNanos, long endedNanos) {
    }
}
