package io.hedgerow.root.placement;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The root's placement plan: which leaf holds which copy of each partition, and the rules that
 * change it. Pure: events in (a leaf lost, a leaf back, an assignment acknowledged, a tick with the
 * partitions' load), a new {@link PlacementSnapshot} and the leaves to tell out. No clock, no
 * threads: every event carries its time.
 *
 * <p><b>Copies.</b> A copy is {@link CopyState#OPENING} from the moment its leaf is told until the
 * leaf's acknowledgement (of that target or a later one) lists it open: only then does it enter
 * the serving assignment. A copy leaving is {@link CopyState#RETIRING}: out of the serving
 * assignment at once, still open on its leaf for {@link PlacementSettings#retireDelay} so the
 * searches already sent there finish, then dropped from the leaf's target.
 *
 * <p><b>Re-replication.</b> A lost leaf's copies keep counting for {@link PlacementSettings#grace}
 * (a supervisor's restart moves nothing). After that the leaf is gone: each partition short of
 * copies on live leaves gets a new one, most-short partitions first, at most
 * {@link PlacementSettings#maxOpening} opening at once, on the live leaf holding the fewest copies
 * that holds none of that partition (ties: fewest opening, then a rotation by partition, so a gone
 * leaf's partitions spread over the survivors). The gone leaf's own copies stay in its target: when
 * it returns it reopens them, and the copies made in its absence are then surplus and retire. So a
 * return restores the original layout (and the pairs canaries rely on) rather than leaving the
 * returning leaf empty.
 *
 * <p><b>Surplus.</b> A partition with more serving copies on live leaves than it should have (after
 * a return, or once a hot partition cools) retires a copy that is not an original, from the leaf
 * holding most copies; never while one of its copies is still opening, never its last.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread (the placement service's) owns
 * it. The serving assignment it publishes always has at least one copy of every partition, and
 * never two copies of a partition on one leaf.
 */
public final class Placement {
    /** Why a copy exists. */
    public enum Reason { ORIGINAL, RE_REPLICATION, HOT, REBALANCE }

    public enum CopyState { OPENING, SERVING, RETIRING }


    /** One copy of a partition on a leaf. */
    private static final class Copy {
        final int partition;
        final int leaf;
        final Reason reason;
        final String why;
        final long startedNanos;
        CopyState state;
        long sinceNanos;
        /** The leaf's target version that first listed this copy. */
        long version;
        /** The leaf whose copy retires once this one serves (a move), or -1. */
        int replaces = -1;

        Copy(int partition, int leaf, Reason reason, String why, CopyState state, long nowNanos) {
            this.partition = partition;
            this.leaf = leaf;
            this.reason = reason;
            this.why = why;
            this.state = state;
            this.startedNanos = nowNanos;
            this.sinceNanos = nowNanos;
        }
    }

    private final PlacementSettings settings;
    private final int replicas;
    private final int leaves;
    private final List<List<Copy>> copies = new ArrayList<>();
    private final boolean[] alive;
    private final long[] lostSinceNanos;
    private final long[] version;
    private final Set<Integer> changedLeaves = new TreeSet<>();
    /** Partition * leaves + leaf: a copy that failed there is not tried there again before this time. */
    private final Map<Integer, Long> avoidUntil = new HashMap<>();
    private final PlacementHistory history = new PlacementHistory();
    private final HotPartitions hot;
    private final Rebalancer rebalancer;
    private boolean servingChanged = true;
    private PlacementSnapshot snapshot;
    private long underReplicatedSinceNanos = -1;
    private long lastFullReplicationNanos = -1;

    /** Starts from {@code initial}, every copy serving, every leaf alive. */
    public Placement(PartitionAssignment initial, int replicas, PlacementSettings settings, long nowNanos) {
        this.settings = settings;
        this.replicas = replicas;
        this.leaves = initial.leaves();
        this.alive = new boolean[leaves];
        java.util.Arrays.fill(alive, true);
        this.lostSinceNanos = new long[leaves];
        this.version = new long[leaves];
        for (int p = 0; p < initial.partitions(); p++) {
            List<Copy> list = new ArrayList<>();
            for (int leaf : initial.replicasOf(p)) {
                list.add(new Copy(p, leaf, Reason.ORIGINAL, "the assignment at start", CopyState.SERVING, nowNanos));
            }
            copies.add(list);
        }
        this.hot = new HotPartitions(initial.partitions(), settings);
        this.rebalancer = new Rebalancer(settings);
    }

    /** Every connection to {@code leaf} is gone (or it said it is draining). */
    public void leafLost(int leaf, long nowNanos) {
        if (!alive[leaf]) {
            return;
        }
        alive[leaf] = false;
        lostSinceNanos[leaf] = nowNanos;
        for (Copy copy : List.copyOf(copiesOn(leaf))) {
            if (copy.state == CopyState.OPENING) {
                fail(copy, "its leaf was lost while it opened", nowNanos);
            }
        }
        if (underReplicatedSinceNanos < 0) {
            underReplicatedSinceNanos = nowNanos;
        }
    }

    /** {@code leaf} is connected again, with its whole target acknowledged. */
    public void leafBack(int leaf, long nowNanos) {
        alive[leaf] = true;
    }

    /**
     * {@code leaf} acknowledged its target of version {@code ackedVersion}; {@code open} lists the
     * partitions it has open. A copy opening there since that version or earlier serves if listed,
     * and is given up if not (it failed to open).
     */
    public void acked(int leaf, long ackedVersion, Set<Integer> open, long nowNanos) {
        for (Copy copy : List.copyOf(copiesOn(leaf))) {
            if (copy.state != CopyState.OPENING || copy.version > ackedVersion) {
                continue;
            }
            if (!open.contains(copy.partition)) {
                fail(copy, "the leaf did not open it", nowNanos);
                continue;
            }
            copy.state = CopyState.SERVING;
            copy.sinceNanos = nowNanos;
            servingChanged = true;
            history.opened(move(copy, "serving", nowNanos));
            if (copy.replaces >= 0) {
                Copy source = find(copy.partition, copy.replaces);
                if (source != null && source.state == CopyState.SERVING) {
                    retire(source, nowNanos);
                }
            }
        }
        checkFull(nowNanos);
    }

    /**
     * Runs the rules at {@code nowNanos}.
     *
     * @param partitionLoad each partition's load over the window (any unit: leaf service time per
     *                      second), or null when not measured (selective replication and
     *                      rebalancing then do nothing)
     */
    public void tick(long nowNanos, double[] partitionLoad) {
        for (List<Copy> list : copies) {
            for (Copy copy : List.copyOf(list)) {
                if (copy.state == CopyState.OPENING && nowNanos - copy.startedNanos >= settings.openTimeout().toNanos()) {
                    fail(copy, "not acknowledged open within " + settings.openTimeout(), nowNanos);
                } else if (copy.state == CopyState.RETIRING
                        && nowNanos - copy.sinceNanos >= settings.retireDelay().toNanos()) {
                    list.remove(copy);
                    changed(copy.leaf);
                }
            }
        }
        if (settings.selectiveReplication() && partitionLoad != null) {
            hot.update(partitionLoad, nowNanos);
        }
        addMissing(nowNanos);
        retireSurplus(nowNanos);
        if (settings.rebalancing() && partitionLoad != null && opening() == 0) {
            Rebalancer.Choice move = rebalancer.choose(partitionLoad, servingOnLive(), alive, nowNanos);
            if (move != null) {
                Copy copy = open(move.partition(), move.toLeaf(), Reason.REBALANCE, move.why(), nowNanos);
                copy.replaces = move.fromLeaf();
            }
        }
        checkFull(nowNanos);
    }

    /** Ends a stretch of under-replication once every partition has its serving copies on live leaves. */
    private void checkFull(long nowNanos) {
        if (underReplicatedSinceNanos >= 0 && underReplicated() == 0) {
            lastFullReplicationNanos = nowNanos - underReplicatedSinceNanos;
            underReplicatedSinceNanos = -1;
        }
    }

    private int desired(int partition) {
        int extra = settings.selectiveReplication() ? hot.extra(partition) : 0;
        return Math.min(liveLeaves(), replicas + extra);
    }

    /** Copies that count towards a partition's replicas: not retiring, on a leaf alive or within its grace. */
    private int counted(int partition, long nowNanos) {
        int count = 0;
        for (Copy copy : copies.get(partition)) {
            if (copy.state != CopyState.RETIRING && !gone(copy.leaf, nowNanos)) {
                count++;
            }
        }
        return count;
    }

    private boolean gone(int leaf, long nowNanos) {
        return !alive[leaf] && settings.reReplication() && nowNanos - lostSinceNanos[leaf] >= settings.grace().toNanos();
    }

    private void addMissing(long nowNanos) {
        List<Integer> order = new ArrayList<>();
        for (int p = 0; p < copies.size(); p++) {
            if (counted(p, nowNanos) < desired(p)) {
                order.add(p);
            }
        }
        order.sort(Comparator.comparingInt((Integer p) -> counted(p, nowNanos) - desired(p)).thenComparingInt(p -> p));
        for (int p : order) {
            while (opening() < settings.maxOpening() && counted(p, nowNanos) < desired(p)) {
                int target = leastLoaded(p, nowNanos);
                if (target < 0) {
                    break;
                }
                Copy lost = copies.get(p).stream().filter(c -> gone(c.leaf, nowNanos)).findFirst().orElse(null);
                if (lost != null && counted(p, nowNanos) < replicas) {
                    open(p, target, Reason.RE_REPLICATION, "replaces the copy on leaf " + lost.leaf + ", lost "
                            + (nowNanos - lostSinceNanos[lost.leaf]) / 1_000_000 + " ms before", nowNanos);
                } else {
                    open(p, target, Reason.HOT, hot.why(p), nowNanos);
                }
            }
        }
    }

    /** The live leaf with the fewest copies holding no copy of {@code partition}, or -1. */
    private int leastLoaded(int partition, long nowNanos) {
        int[] held = new int[leaves];
        int[] opening = new int[leaves];
        for (List<Copy> list : copies) {
            for (Copy copy : list) {
                if (copy.state != CopyState.RETIRING) {
                    held[copy.leaf]++;
                }
                if (copy.state == CopyState.OPENING) {
                    opening[copy.leaf]++;
                }
            }
        }
        int best = -1;
        for (int i = 0; i < leaves; i++) {
            int leaf = (partition + i) % leaves;
            Long until = avoidUntil.get(partition * leaves + leaf);
            if (!alive[leaf] || find(partition, leaf) != null || (until != null && nowNanos - until < 0)) {
                continue;
            }
            if (best < 0 || held[leaf] < held[best] || (held[leaf] == held[best] && opening[leaf] < opening[best])) {
                best = leaf;
            }
        }
        return best;
    }

    private void retireSurplus(long nowNanos) {
        for (int p = 0; p < copies.size(); p++) {
            List<Copy> list = copies.get(p);
            if (list.stream().anyMatch(c -> c.state == CopyState.OPENING)) {
                continue;
            }
            while (true) {
                List<Copy> live = list.stream().filter(c -> c.state == CopyState.SERVING && alive[c.leaf]).toList();
                if (live.size() <= Math.max(1, desired(p))) {
                    break;
                }
                Copy victim = live.stream().filter(c -> c.reason != Reason.ORIGINAL)
                        .max(Comparator.comparingInt((Copy c) -> copiesOn(c.leaf).size()).thenComparingInt(c -> c.leaf))
                        .orElse(null);
                if (victim == null) {
                    break;
                }
                retire(victim, nowNanos);
            }
        }
    }

    private Copy open(int partition, int leaf, Reason reason, String why, long nowNanos) {
        Copy copy = new Copy(partition, leaf, reason, why, CopyState.OPENING, nowNanos);
        copies.get(partition).add(copy);
        changed(leaf);
        copy.version = version[leaf];
        history.started(reason);
        return copy;
    }

    private void retire(Copy copy, long nowNanos) {
        copy.state = CopyState.RETIRING;
        copy.sinceNanos = nowNanos;
        servingChanged = true;
        history.retired(move(copy, "retired", nowNanos));
    }

    private void fail(Copy copy, String why, long nowNanos) {
        copies.get(copy.partition).remove(copy);
        changed(copy.leaf);
        avoidUntil.put(copy.partition * leaves + copy.leaf, nowNanos + settings.openTimeout().toNanos());
        history.failed(move(copy, "failed: " + why, nowNanos));
    }

    private static PlacementReport.Move move(Copy copy, String outcome, long nowNanos) {
        return new PlacementReport.Move(copy.partition, copy.leaf, copy.reason, outcome, copy.why, copy.startedNanos,
                nowNanos);
    }

    private void changed(int leaf) {
        version[leaf]++;
        changedLeaves.add(leaf);
    }

    private Copy find(int partition, int leaf) {
        for (Copy copy : copies.get(partition)) {
            if (copy.leaf == leaf) {
                return copy;
            }
        }
        return null;
    }

    private List<Copy> copiesOn(int leaf) {
        List<Copy> on = new ArrayList<>();
        for (List<Copy> list : copies) {
            for (Copy copy : list) {
                if (copy.leaf == leaf) {
                    on.add(copy);
                }
            }
        }
        return on;
    }

    private int opening() {
        int count = 0;
        for (List<Copy> list : copies) {
            for (Copy copy : list) {
                if (copy.state == CopyState.OPENING) {
                    count++;
                }
            }
        }
        return count;
    }

    private int liveLeaves() {
        int count = 0;
        for (boolean a : alive) {
            count += a ? 1 : 0;
        }
        return count;
    }

    /** For each partition, the live leaves serving it. */
    private int[][] servingOnLive() {
        int[][] out = new int[copies.size()][];
        for (int p = 0; p < out.length; p++) {
            out[p] = copies.get(p).stream().filter(c -> c.state == CopyState.SERVING && alive[c.leaf])
                    .mapToInt(c -> c.leaf).toArray();
        }
        return out;
    }

    /** Partitions with fewer serving copies on live leaves than they should have. */
    public int underReplicated() {
        int[][] serving = servingOnLive();
        int count = 0;
        for (int p = 0; p < serving.length; p++) {
            if (serving[p].length < desired(p)) {
                count++;
            }
        }
        return count;
    }

    /** The leaves whose target changed since the last call: tell each its new target. */
    public Set<Integer> takeChangedLeaves() {
        Set<Integer> out = Set.copyOf(changedLeaves);
        changedLeaves.clear();
        return out;
    }

    /** The plan as searches and leaves see it; a new object only when something changed. */
    public PlacementSnapshot snapshot() {
        if (snapshot != null && !servingChanged && takesNoNewTargets()) {
            return snapshot;
        }
        int[][] serving = new int[copies.size()][];
        List<List<Integer>> targets = new ArrayList<>();
        for (int leaf = 0; leaf < leaves; leaf++) {
            targets.add(new ArrayList<>());
        }
        for (int p = 0; p < serving.length; p++) {
            serving[p] = copies.get(p).stream().filter(c -> c.state == CopyState.SERVING).mapToInt(c -> c.leaf).toArray();
            if (serving[p].length == 0) {
                serving[p] = copies.get(p).stream().mapToInt(c -> c.leaf).toArray();
            }
            for (Copy copy : copies.get(p)) {
                targets.get(copy.leaf).add(p);
            }
        }
        int[][] targetOfLeaf = targets.stream().map(t -> t.stream().mapToInt(Integer::intValue).sorted().toArray())
                .toArray(int[][]::new);
        snapshot = new PlacementSnapshot(PartitionAssignment.of(leaves, serving), targetOfLeaf, version.clone());
        servingChanged = false;
        return snapshot;
    }

    private boolean takesNoNewTargets() {
        return java.util.Arrays.equals(snapshot.targetVersion(), version);
    }

    /** What the controllers did and are doing. */
    public PlacementReport report(long nowNanos) {
        List<PlacementReport.CopyView> views = new ArrayList<>();
        for (List<Copy> list : copies) {
            for (Copy copy : list) {
                if (copy.reason != Reason.ORIGINAL || copy.state != CopyState.SERVING) {
                    views.add(new PlacementReport.CopyView(copy.partition, copy.leaf, copy.reason, copy.state,
                            copy.why, copy.startedNanos, copy.sinceNanos));
                }
            }
        }
        List<Integer> gone = new ArrayList<>();
        for (int leaf = 0; leaf < leaves; leaf++) {
            if (gone(leaf, nowNanos)) {
                gone.add(leaf);
            }
        }
        return history.report(views, gone, underReplicated(), underReplicatedSinceNanos, lastFullReplicationNanos);
    }
}
