package io.hedgerow.root.placement;

import java.util.ArrayDeque;
import java.util.List;

/**
 * What the placement has done, for its report: counts of copies started by why and ended by how,
 * and the last moves that ended. Confined to the placement's thread, like {@link Placement}.
 */
final class PlacementHistory {
    private static final int RECENT = 32;

    private final ArrayDeque<PlacementReport.Move> recent = new ArrayDeque<>();
    private long reReplications;
    private long hotCopies;
    private long rebalanceMoves;
    private long opened;
    private long failed;
    private long retired;

    void started(Placement.Reason reason) {
        switch (reason) {
            case RE_REPLICATION -> reReplications++;
            case HOT -> hotCopies++;
            case REBALANCE -> rebalanceMoves++;
            case ORIGINAL -> { }
        }
    }

    void opened(PlacementReport.Move move) {
        opened++;
        remember(move);
    }

    void failed(PlacementReport.Move move) {
        failed++;
        remember(move);
    }

    void retired(PlacementReport.Move move) {
        retired++;
        remember(move);
    }

    private void remember(PlacementReport.Move move) {
        if (recent.size() == RECENT) {
            recent.removeFirst();
        }
        recent.addLast(move);
    }

    PlacementReport report(List<PlacementReport.CopyView> copies, List<Integer> goneLeaves, int underReplicated,
            long underReplicatedSinceNanos, long lastFullReplicationNanos) {
        return new PlacementReport(copies, List.copyOf(recent), goneLeaves, underReplicated, underReplicatedSinceNanos,
                lastFullReplicationNanos, reReplications, hotCopies, rebalanceMoves, opened, failed, retired);
    }
}
