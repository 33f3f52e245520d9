package io.hedgerow.root.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which leaves hold which partitions: each partition has {@code replicas} copies on distinct
 * leaves. Pure and immutable.
 *
 * <p>Replica r of partition p lives on leaf {@code (p + r * stride) mod leaves}, where the stride
 * spreads replicas so that when one leaf is lost its partitions' other copies are shared by
 * several leaves rather than piling onto its neighbour.
 */
public final class PartitionAssignment {
    private final int partitions;
    private final int leaves;
    private final int[][] replicasOfPartition;
    private final int[][] partitionsOfLeaf;

    private PartitionAssignment(int partitions, int leaves, int[][] replicasOfPartition) {
        this.partitions = partitions;
        this.leaves = leaves;
        this.replicasOfPartition = replicasOfPartition;
        List<List<Integer>> byLeaf = new ArrayList<>();
        for (int leaf = 0; leaf < leaves; leaf++) {
            byLeaf.add(new ArrayList<>());
        }
        for (int p = 0; p < partitions; p++) {
            for (int leaf : replicasOfPartition[p]) {
                byLeaf.get(leaf).add(p);
            }
        }
        this.partitionsOfLeaf = byLeaf.stream()
                .map(list -> list.stream().mapToInt(Integer::intValue).toArray())
                .toArray(int[][]::new);
    }

    /**
     * Spreads {@code partitions} over {@code leaves} with {@code replicas} copies each.
     *
     * @throws IllegalArgumentException when there are fewer leaves than replicas
     */
    public static PartitionAssignment spread(int partitions, int leaves, int replicas) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        if (leaves < 1 || leaves > 64) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: 1..64)");
        }
        if (replicas < 1 || replicas > leaves) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: 1.." + leaves
                    + ", at most one copy per leaf)");
        }
        int[][] replicasOf = new int[partitions][replicas];
        for (int p = 0; p < partitions; p++) {
            int primary = p % leaves;
            // Successive rounds of partitions place their second copy at growing distances.
            int offset = 1 + (p / leaves) % Math.max(1, leaves - 1);
            for (int r = 0; r < replicas; r++) {
                replicasOf[p][r] = r == 0 ? primary : nextFree(replicasOf[p], r, (primary + r * offset) % leaves, leaves);
            }
        }
        return new PartitionAssignment(partitions, leaves, replicasOf);
    }

    private static int nextFree(int[] chosen, int count, int candidate, int leaves) {
        while (contains(chosen, count, candidate)) {
            candidate = (candidate + 1) % leaves;
        }
        return candidate;
    }

    private static boolean contains(int[] values, int count, int value) {
        for (int i = 0; i < count; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }

    public int partitions() {
        return partitions;
    }

    public int leaves() {
        return leaves;
    }

    /** The leaves holding {@code partition}, preferred first. Do not modify. */
    public int[] replicasOf(int partition) {
        return replicasOfPartition[partition];
    }

    /** The partitions {@code leaf} holds, ascending. */
    public int[] partitionsOf(int leaf) {
        return partitionsOfLeaf[leaf].clone();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (int leaf = 0; leaf < leaves; leaf++) {
            out.append("leaf ").append(leaf).append(": ").append(Arrays.toString(partitionsOfLeaf[leaf])).append('\n');
        }
        return out.toString();
    }
}
