package io.hedgerow.root.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which leaves hold which partitions: each partition has {@code replicas} copies on distinct
 * leaves. Pure and immutable.
 *
 * <p>Replica r of partition p lives on leaf {@code (p + r * stride) mod leaves}, where the stride
 * spreads replicas so that when one leaf is lost its partitions' other copies are shared by
 * several leaves rather than piling onto its neighbour.
 *
 * <p>With two replicas on an even number of leaves (four or more), leaves go in partner pairs,
 * 0-1, 2-3 and so on, that share no partition: a partition's second copy goes to a leaf other
 * than its first copy's partner, turn by turn. Then there is always a pair of leaves whose loss
 * costs no partition both replicas, and that is where a query's second canary goes (a real query
 * of death crashes the leaves its canaries reach). The price: a lost leaf's partitions fall to the
 * leaves other than its partner, half of them each on four leaves, not a third each on three.
 */
public final class PartitionAssignment {
    private final int partitions;
    private final int leaves;
    private final int[][] replicasOfPartition;
    private final int[][] partitionsOfLeaf;
    private final int mostReplicas;

    private PartitionAssignment(int partitions, int leaves, int[][] replicasOfPartition) {
        this.partitions = partitions;
        this.leaves = leaves;
        this.replicasOfPartition = replicasOfPartition;
        int most = 0;
        for (int[] replicas : replicasOfPartition) {
            most = Math.max(most, replicas.length);
        }
        this.mostReplicas = most;
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
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 1)");
        }
        if (replicas < 1 || replicas > leaves) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: 1.." + leaves
                    + ", at most one copy per leaf)");
        }
        if (replicas == 2 && leaves >= 4 && leaves % 2 == 0) {
            return partnered(partitions, leaves);
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

    /**
     * Two copies; leaf 2k and leaf 2k+1 are partners that share no partition. The second copy goes
     * to a leaf other than the first and its partner: the least loaded, then the one sharing fewest
     * partitions with the first so far (so a lost leaf's partitions fall evenly on the others), then
     * the next round the leaves from a point that moves each round.
     */
    private static PartitionAssignment partnered(int partitions, int leaves) {
        int[][] replicasOf = new int[partitions][2];
        int[] load = new int[leaves];
        // Partitions shared by two leaves, kept sparse (a leaves x leaves matrix is 400 MB at 10,000
        // leaves); the first copy's row is spread into a dense scratch row while its second copy is chosen.
        List<Map<Integer, Integer>> sharedWith = new ArrayList<>(leaves);
        for (int leaf = 0; leaf < leaves; leaf++) {
            sharedWith.add(new HashMap<>());
        }
        int[] sharedRow = new int[leaves];
        for (int p = 0; p < partitions; p++) {
            load[p % leaves]++;
        }
        for (int p = 0; p < partitions; p++) {
            int first = p % leaves;
            int partner = first ^ 1;
            int start = 1 + (p / leaves) % (leaves - 1);
            sharedWith.get(first).forEach((other, count) -> sharedRow[other] = count);
            int second = -1;
            for (int i = 0; i < leaves - 1; i++) {
                int candidate = (first + start + i) % leaves;
                if (candidate == first || candidate == partner) {
                    continue;
                }
                if (second < 0 || load[candidate] < load[second]
                        || (load[candidate] == load[second] && sharedRow[candidate] < sharedRow[second])) {
                    second = candidate;
                }
            }
            sharedWith.get(first).forEach((other, count) -> sharedRow[other] = 0);
            load[second]++;
            sharedWith.get(first).merge(second, 1, Integer::sum);
            sharedWith.get(second).merge(first, 1, Integer::sum);
            replicasOf[p][0] = first;
            replicasOf[p][1] = second;
        }
        return new PartitionAssignment(partitions, leaves, replicasOf);
    }

    /**
     * Exactly these replicas: {@code replicasOfPartition[p]} are partition p's leaves, preferred
     * first (a placement controller's serving assignment). Partitions may have different numbers of
     * replicas, at least one each, never two on one leaf. The arrays are copied.
     */
    public static PartitionAssignment of(int leaves, int[][] replicasOfPartition) {
        if (leaves < 1 || replicasOfPartition.length < 1) {
            throw new IllegalArgumentException("leaves: " + leaves + ", partitions: " + replicasOfPartition.length
                    + " (expected: both >= 1)");
        }
        int[][] copy = new int[replicasOfPartition.length][];
        for (int p = 0; p < copy.length; p++) {
            copy[p] = replicasOfPartition[p].clone();
            if (copy[p].length < 1) {
                throw new IllegalArgumentException("partition " + p + ": no replica (expected: at least one)");
            }
            for (int r = 0; r < copy[p].length; r++) {
                if (copy[p][r] < 0 || copy[p][r] >= leaves || contains(copy[p], r, copy[p][r])) {
                    throw new IllegalArgumentException("partition " + p + ": replicas " + Arrays.toString(copy[p])
                            + " (expected: distinct leaves in 0.." + (leaves - 1) + ")");
                }
            }
        }
        return new PartitionAssignment(copy.length, leaves, copy);
    }

    /**
     * This assignment over {@code slots} leaves, the leaves past its own holding nothing: the first
     * assignment of a root with more leaf slots than {@code --leaves} (the rest fill at run time).
     */
    public PartitionAssignment widened(int slots) {
        if (slots < leaves) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: >= " + leaves + ", the leaves assigned)");
        }
        return slots == leaves ? this : of(slots, replicasOfPartition);
    }

    /** The leaf that shares no partition with {@code leaf}, or -1 when the placement has none. */
    public int partnerOf(int leaf) {
        for (int other = 0; other < leaves; other++) {
            // A leaf holding nothing (a vacant slot, or one that just joined) shares nothing, and is no
            // partner: a canary sent there would answer for no partition.
            if (other != leaf && partitionsOfLeaf[other].length > 0
                    && disjoint(partitionsOfLeaf[leaf], partitionsOfLeaf[other])) {
                return other;
            }
        }
        return -1;
    }

    private static boolean disjoint(int[] a, int[] b) {
        for (int x : a) {
            for (int y : b) {
                if (x == y) {
                    return false;
                }
            }
        }
        return true;
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

    /** The most replicas any partition has (a hot partition's extra copies included). */
    public int mostReplicas() {
        return mostReplicas;
    }

    /** The most replicas any of {@code targets} has. */
    public int mostReplicas(int[] targets) {
        int most = 0;
        for (int p : targets) {
            most = Math.max(most, replicasOfPartition[p].length);
        }
        return most;
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
