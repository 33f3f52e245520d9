package io.hedgerow.root.placement;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Every copy of every partition in the placement plan, and what can be read off them: the copies of
 * a partition or on a leaf, those opening, the serving assignment and each leaf's target. The rules
 * that add, serve, retire and drop copies are {@link Placement}'s. Confined to its thread, like it.
 */
final class PlacementCopies {

    /** One copy of a partition on a leaf. */
    static final class Copy {
        final int partition;
        final int leaf;
        final Placement.Reason reason;
        final String why;
        final long startedNanos;
        Placement.CopyState state;
        long sinceNanos;
        /** The leaf's target version that first listed this copy. */
        long version;
        /** The leaf whose copy retires once this one serves (a move), or -1. */
        int replaces = -1;

        Copy(int partition, int leaf, Placement.Reason reason, String why, Placement.CopyState state, long nowNanos) {
            this.partition = partition;
            this.leaf = leaf;
            this.reason = reason;
            this.why = why;
            this.state = state;
            this.startedNanos = nowNanos;
            this.sinceNanos = nowNanos;
        }

        PlacementReport.Move move(String outcome, long nowNanos) {
            return new PlacementReport.Move(partition, leaf, reason, outcome, why, startedNanos, nowNanos);
        }
    }

    private final int leaves;
    private final List<List<Copy>> byPartition = new ArrayList<>();

    /** The {@code initial} assignment's copies, every one serving. */
    PlacementCopies(PartitionAssignment initial, long nowNanos) {
        this.leaves = initial.leaves();
        for (int p = 0; p < initial.partitions(); p++) {
            List<Copy> list = new ArrayList<>();
            for (int leaf : initial.replicasOf(p)) {
                list.add(new Copy(p, leaf, Placement.Reason.ORIGINAL, "the assignment at start",
                        Placement.CopyState.SERVING, nowNanos));
            }
            byPartition.add(list);
        }
    }

    /**
     * The copies of a plan another leader left ({@code plan}), each in its state there, as if each had
     * entered that state {@code nowNanos} (the plan keeps no times).
     */
    PlacementCopies(PlacementPlan plan, long nowNanos) {
        this.leaves = plan.leaves();
        for (int p = 0; p < plan.partitions(); p++) {
            List<Copy> list = new ArrayList<>();
            for (PlacementPlan.PlannedCopy planned : plan.copies().get(p)) {
                list.add(new Copy(p, planned.leaf(), planned.reason(), planned.reason() == Placement.Reason.ORIGINAL
                        ? "the assignment at start" : "taken over from the previous placement leader's plan",
                        planned.state(), nowNanos));
            }
            byPartition.add(list);
        }
    }

    int partitions() {
        return byPartition.size();
    }

    /** The partition's copies (the live list: the caller may add and remove). */
    List<Copy> of(int partition) {
        return byPartition.get(partition);
    }

    Copy find(int partition, int leaf) {
        for (Copy copy : byPartition.get(partition)) {
            if (copy.leaf == leaf) {
                return copy;
            }
        }
        return null;
    }

    /** The copies on {@code leaf} (a new list). */
    List<Copy> on(int leaf) {
        List<Copy> on = new ArrayList<>();
        for (List<Copy> list : byPartition) {
            for (Copy copy : list) {
                if (copy.leaf == leaf) {
                    on.add(copy);
                }
            }
        }
        return on;
    }

    /** How many copies are in {@code state} on each leaf. */
    int[] perLeaf(Placement.CopyState state) {
        int[] count = new int[leaves];
        for (List<Copy> list : byPartition) {
            for (Copy copy : list) {
                if (copy.state == state) {
                    count[copy.leaf]++;
                }
            }
        }
        return count;
    }

    /**
     * The leaf with the least {@code leafLoad} (when not null), then the fewest copies (serving or on
     * their way), among those {@code eligible} that hold no copy of {@code partition}, or -1; ties:
     * fewest not serving yet, then a rotation by partition, so a gone leaf's partitions spread over
     * the survivors.
     */
    int leastLoaded(int partition, IntPredicate eligible, double[] leafLoad) {
        int[] opening = openingPerLeaf();
        int[] held = perLeaf(Placement.CopyState.SERVING);
        for (int leaf = 0; leaf < leaves; leaf++) {
            held[leaf] += opening[leaf]; // not retiring
        }
        int best = -1;
        for (int i = 0; i < leaves; i++) {
            int leaf = (partition + i) % leaves;
            if (!eligible.test(leaf) || find(partition, leaf) != null) {
                continue;
            }
            int byLoad = best < 0 || leafLoad == null ? 0 : Double.compare(leafLoad[leaf], leafLoad[best]);
            if (best < 0 || byLoad < 0 || (byLoad == 0 && (held[leaf] < held[best]
                    || (held[leaf] == held[best] && opening[leaf] < opening[best])))) {
                best = leaf;
            }
        }
        return best;
    }

    /** The leaves of the partition's copies that are not retiring, in the list's order. */
    int[] notRetiring(int partition) {
        return byPartition.get(partition).stream().filter(c -> c.state != Placement.CopyState.RETIRING)
                .mapToInt(c -> c.leaf).toArray();
    }

    /** The copies in {@code state}, as {partition, leaf} pairs. */
    List<int[]> inState(Placement.CopyState state) {
        List<int[]> out = new ArrayList<>();
        for (List<Copy> list : byPartition) {
            for (Copy copy : list) {
                if (copy.state == state) {
                    out.add(new int[] {copy.partition, copy.leaf});
                }
            }
        }
        return out;
    }

    /** Copies not serving yet on each leaf: opening or catching up. */
    int[] openingPerLeaf() {
        int[] opening = perLeaf(Placement.CopyState.OPENING);
        int[] catchingUp = perLeaf(Placement.CopyState.CATCHING_UP);
        for (int leaf = 0; leaf < leaves; leaf++) {
            opening[leaf] += catchingUp[leaf];
        }
        return opening;
    }

    /** Copies not serving yet: opening or catching up (they count against the cap on copies opening). */
    int opening() {
        int count = 0;
        for (int n : openingPerLeaf()) {
            count += n;
        }
        return count;
    }

    /**
     * Each leaf's share of {@code partitionLoad}: a partition's load split evenly over its copies on
     * leaves {@code alive} that are not retiring (copies on their way count: they will take a share).
     */
    double[] leafLoads(double[] partitionLoad, boolean[] alive) {
        int[][] held = new int[byPartition.size()][];
        for (int p = 0; p < held.length; p++) {
            held[p] = byPartition.get(p).stream().filter(c -> c.state != Placement.CopyState.RETIRING && alive[c.leaf])
                    .mapToInt(c -> c.leaf).toArray();
        }
        return Rebalancer.leafLoads(partitionLoad, held, leaves);
    }

    /** For each partition, the leaves {@code alive} that serve it. */
    int[][] servingOn(boolean[] alive) {
        int[][] out = new int[byPartition.size()][];
        for (int p = 0; p < out.length; p++) {
            out[p] = byPartition.get(p).stream().filter(c -> c.state == Placement.CopyState.SERVING && alive[c.leaf])
                    .mapToInt(c -> c.leaf).toArray();
        }
        return out;
    }

    /**
     * The serving assignment (copies serving; a partition with none keeps all its copies, so it is
     * never without one) and each leaf's target (every copy it holds, in any state).
     */
    PlacementSnapshot snapshot(long[] targetVersion) {
        return plan(targetVersion).snapshot();
    }

    /** Every copy, its reason and state, with each leaf's target version: what roots share. */
    PlacementPlan plan(long[] targetVersion) {
        List<List<PlacementPlan.PlannedCopy>> planned = new ArrayList<>();
        for (List<Copy> list : byPartition) {
            planned.add(list.stream().map(c -> new PlacementPlan.PlannedCopy(c.leaf, c.reason, c.state)).toList());
        }
        return new PlacementPlan(planned, java.util.Arrays.stream(targetVersion).boxed().toList());
    }

    /** Every copy that is not an original serving one, for the report. */
    List<PlacementReport.CopyView> views() {
        List<PlacementReport.CopyView> views = new ArrayList<>();
        for (List<Copy> list : byPartition) {
            for (Copy copy : list) {
                if (copy.reason != Placement.Reason.ORIGINAL || copy.state != Placement.CopyState.SERVING) {
                    views.add(new PlacementReport.CopyView(copy.partition, copy.leaf, copy.reason, copy.state,
                            copy.why, copy.startedNanos, copy.sinceNanos));
                }
            }
        }
        return views;
    }

    /** Every partition's list of copies, to walk (and change) in place. */
    List<List<Copy>> all() {
        return byPartition;
    }
}
