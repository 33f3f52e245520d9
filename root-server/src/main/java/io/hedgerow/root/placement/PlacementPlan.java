package io.hedgerow.root.placement;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole placement plan as roots share it: every copy of every partition (its leaf, why it exists
 * and where it is in its life) and each leaf's target version. The placement leader writes it to the
 * coordination store; the other roots route by it ({@link #snapshot}, {@link #keptCopies}); a root
 * that takes over the lead continues from it ({@link Placement#Placement(PlacementPlan, int,
 * PlacementSettings, long, boolean)}). Leaves are this root's leaf slots; the stored form names each
 * by address, which every root maps to its own slots ({@code PlanSlotMapper}). Immutable; equal plans are
 * equal records.
 *
 * @param copies        each partition's copies, preferred first
 * @param targetVersion each leaf's target version (what its next assignment is numbered above)
 */
public record PlacementPlan(List<List<PlannedCopy>> copies, List<Long> targetVersion) {

    /** One copy: partition p's copy on {@code leaf}. */
    public record PlannedCopy(int leaf, Placement.Reason reason, Placement.CopyState state) {
    }

    public PlacementPlan {
        copies = copies.stream().map(List::copyOf).toList();
        targetVersion = List.copyOf(targetVersion);
        if (copies.isEmpty()) {
            throw new IllegalArgumentException("copies: no partition (expected: at least one)");
        }
        for (int p = 0; p < copies.size(); p++) {
            for (PlannedCopy copy : copies.get(p)) {
                if (copy.leaf() < 0 || copy.leaf() >= targetVersion.size()) {
                    throw new IllegalArgumentException("partition " + p + ": a copy on leaf " + copy.leaf()
                            + " (expected: 0.." + (targetVersion.size() - 1) + ")");
                }
            }
            if (copies.get(p).stream().map(PlannedCopy::leaf).distinct().count() != copies.get(p).size()) {
                throw new IllegalArgumentException("partition " + p + ": copies " + copies.get(p)
                        + " (expected: at most one per leaf)");
            }
            if (copies.get(p).isEmpty()) {
                throw new IllegalArgumentException("partition " + p + ": no copy (expected: at least one)");
            }
        }
    }

    /** {@code assignment}'s copies, every one serving and original, at target version 0: a plan no leader changed. */
    public static PlacementPlan of(PartitionAssignment assignment) {
        List<List<PlannedCopy>> copies = new ArrayList<>();
        for (int p = 0; p < assignment.partitions(); p++) {
            List<PlannedCopy> list = new ArrayList<>();
            for (int leaf : assignment.replicasOf(p)) {
                list.add(new PlannedCopy(leaf, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING));
            }
            copies.add(list);
        }
        List<Long> versions = new ArrayList<>();
        for (int leaf = 0; leaf < assignment.leaves(); leaf++) {
            versions.add(0L);
        }
        return new PlacementPlan(copies, versions);
    }

    public int partitions() {
        return copies.size();
    }

    public int leaves() {
        return targetVersion.size();
    }

    /** The leaves of {@code partition}'s copies that are not retiring: the replicas the write path keeps in sync. */
    public int[] keptCopies(int partition) {
        return copies.get(partition).stream().filter(c -> c.state() != Placement.CopyState.RETIRING)
                .mapToInt(PlannedCopy::leaf).toArray();
    }

    /**
     * The plan as searches and leaves see it, as {@link Placement#snapshot} makes it: serving copies
     * (all of a partition's copies when none serves), each leaf's target (every copy it holds) and version.
     */
    public PlacementSnapshot snapshot() {
        int[][] serving = new int[copies.size()][];
        List<List<Integer>> targets = new ArrayList<>();
        for (int leaf = 0; leaf < leaves(); leaf++) {
            targets.add(new ArrayList<>());
        }
        for (int p = 0; p < serving.length; p++) {
            List<PlannedCopy> list = copies.get(p);
            serving[p] = list.stream().filter(c -> c.state() == Placement.CopyState.SERVING)
                    .mapToInt(PlannedCopy::leaf).toArray();
            if (serving[p].length == 0) {
                serving[p] = list.stream().mapToInt(PlannedCopy::leaf).toArray();
            }
            for (PlannedCopy copy : list) {
                targets.get(copy.leaf()).add(p);
            }
        }
        int[][] targetOfLeaf = targets.stream().map(t -> t.stream().mapToInt(Integer::intValue).sorted().toArray())
                .toArray(int[][]::new);
        long[] versions = targetVersion.stream().mapToLong(Long::longValue).toArray();
        return new PlacementSnapshot(PartitionAssignment.of(leaves(), serving), targetOfLeaf, versions);
    }
}
