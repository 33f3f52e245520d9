package io.hedgerow.root.cluster;

import java.util.Arrays;

/**
 * The assignment as searches and leaves see it at one moment, published whole (copy-on-write) so
 * that the request path reads it with one volatile read and no lock.
 *
 * <p>{@code serving} is what searches choose replicas from: only copies whose leaf acknowledged them
 * open. {@code targetOfLeaf[leaf]} is the complete set the leaf is told to serve (an
 * {@code AssignPartitions}): the serving copies plus those still opening and those retiring, which
 * searches no longer read but which stay open a moment for the searches already sent to them.
 * {@code targetVersion[leaf]} numbers the leaf's target: it goes out as the assignment's request id,
 * and the leaf's acknowledgement echoes it, so an acknowledgement of an older target is told apart.
 * Never modify the arrays.
 */
public record PlacementSnapshot(PartitionAssignment serving, int[][] targetOfLeaf, long[] targetVersion) {

    public PlacementSnapshot {
        if (targetOfLeaf.length != serving.leaves() || targetVersion.length != serving.leaves()) {
            throw new IllegalArgumentException("targets for " + targetOfLeaf.length + " leaves, versions for "
                    + targetVersion.length + " (expected: " + serving.leaves() + ", the assignment's leaves)");
        }
    }

    /** The fixed assignment: every leaf serves its partitions of {@code assignment}, at version 0. */
    public static PlacementSnapshot fixed(PartitionAssignment assignment) {
        int[][] targets = new int[assignment.leaves()][];
        for (int leaf = 0; leaf < targets.length; leaf++) {
            targets[leaf] = assignment.partitionsOf(leaf);
        }
        return new PlacementSnapshot(assignment, targets, new long[assignment.leaves()]);
    }

    @Override
    public String toString() {
        return "PlacementSnapshot[targets=" + Arrays.deepToString(targetOfLeaf) + ", versions="
                + Arrays.toString(targetVersion) + "]";
    }
}
