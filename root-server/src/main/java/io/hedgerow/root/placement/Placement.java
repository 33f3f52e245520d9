package io.hedgerow.root.placement;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.hedgerow.root.placement.PlacementCopies.Copy;
import java.util.ArrayList;
import java.util.Arrays;
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
 * the serving assignment. In a root that takes live writes (constructed with {@code catchUp}), the
 * copy opened from the partition store may miss writes: it is {@link CopyState#CATCHING_UP} until
 * the write path reports it in sync ({@link #caughtUp}), and serves only then; one not caught up
 * within {@link PlacementSettings#openTimeout} of its acknowledgement is given up, like one that did
 * not open. A copy leaving is {@link CopyState#RETIRING}: out of the serving
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
 * holding most copies; never while one of its copies is still opening or, for the write path, out
 * of sync; never its last.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread (the placement service's) owns
 * it. The serving assignment it publishes always has at least one copy of every partition, and
 * never two copies of a partition on one leaf.
 */
public final class Placement {
    /** Why a copy exists. */
    public enum Reason { ORIGINAL, RE_REPLICATION, HOT, REBALANCE }

    /**
     * OPENING until its leaf acknowledges it open; CATCHING_UP (only when copies must catch up) until
     * the write path has it in sync; SERVING; RETIRING.
     */
    public enum CopyState { OPENING, CATCHING_UP, SERVING, RETIRING }

    private final PlacementSettings settings;
    private final boolean catchUp;
    private final int replicas;
    private final int leaves;
    private final PlacementCopies copies;
    private final LeafLiveness alive;
    private final long[] version;
    private final Set<Integer> changedLeaves = new TreeSet<>();
    /** Partition * leaves + leaf: a copy that failed there is not tried there again before this time. */
    private final Map<Integer, Long> avoidUntil = new HashMap<>();
    private final PlacementHistory history = new PlacementHistory();
    private final HotPartitions hot;
    private final Rebalancer rebalancer;
    /** Live leaves taking copies until they hold their share: they held none (joined at run time). */
    private final Set<Integer> filling = new TreeSet<>();
    private boolean servingChanged = true;
    private PlacementSnapshot snapshot;
    private long underReplicatedSinceNanos = -1;
    private long lastFullReplicationNanos = -1;

    /** Starts from {@code initial}, every copy serving, every leaf alive; copies serve once open. */
    public Placement(PartitionAssignment initial, int replicas, PlacementSettings settings, long nowNanos) {
        this(initial, replicas, settings, nowNanos, false);
    }

    /**
     * As {@link #Placement(PartitionAssignment, int, PlacementSettings, long)}; with {@code catchUp},
     * a copy opened serves only once {@link #caughtUp} (the partition may have taken live writes).
     */
    public Placement(PartitionAssignment initial, int replicas, PlacementSettings settings, long nowNanos,
            boolean catchUp) {
        this.settings = settings;
        this.catchUp = catchUp;
        this.replicas = replicas;
        this.leaves = initial.leaves();
        this.alive = new LeafLiveness(leaves);
        this.version = new long[leaves];
        this.copies = new PlacementCopies(initial, nowNanos);
        this.hot = new HotPartitions(initial.partitions(), settings);
        this.rebalancer = new Rebalancer(settings);
    }

    /**
     * Continues from {@code plan}, the one the previous placement leader stored: its copies in their
     * states (one opening is served once its leaf acknowledges the target again, one retiring is dropped
     * after the retire delay from now), its leaves' target versions (numbered on from there), every leaf
     * alive until seen otherwise. Nothing that served moves.
     */
    public Placement(PlacementPlan plan, int replicas, PlacementSettings settings, long nowNanos, boolean catchUp) {
        this.settings = settings;
        this.catchUp = catchUp;
        this.replicas = replicas;
        this.leaves = plan.leaves();
        this.alive = new LeafLiveness(leaves);
        this.version = plan.targetVersion().stream().mapToLong(Long::longValue).toArray();
        this.copies = new PlacementCopies(plan, nowNanos);
        for (List<Copy> list : copies.all()) {
            for (Copy copy : list) {
                copy.version = version[copy.leaf];
            }
        }
        this.hot = new HotPartitions(plan.partitions(), settings);
        this.rebalancer = new Rebalancer(settings);
    }

    /**
     * Gives up for good the copies of {@code leaf}, gone past its grace, so that its leaf slot holds
     * nothing and another leaf may take it over ({@link io.hedgerow.root.cluster.SlotReuse}): a leaf
     * waits for a slot and none is free. A gone leaf's copies otherwise stay in its target for its
     * return. Only when each partition it holds a copy of has, without it, at least its replicas serving
     * on live leaves, each of them in sync with the writes, and none of its copies may not move (the
     * write path's primary); otherwise nothing changes. Its copies are dropped, not retired: no search
     * goes to a gone leaf.
     *
     * @param inSync  whether the write path holds a leaf's copy in sync
     * @param movable whether a leaf's copy may move away (not the write path's primary)
     * @return whether the leaf's copies were given up (false also for a leaf holding none)
     */
    public boolean forgetGoneLeaf(int leaf, long nowNanos, InSync inSync, InSync movable) {
        List<Copy> held = List.copyOf(copies.on(leaf));
        if (held.isEmpty() || !gone(leaf, nowNanos)) {
            return false;
        }
        for (Copy copy : held) {
            int partition = copy.partition;
            List<Copy> others = copies.of(partition).stream()
                    .filter(c -> c.leaf != leaf && c.state == CopyState.SERVING && alive.alive(c.leaf)).toList();
            if (others.size() < replicas || others.stream().anyMatch(c -> !inSync.test(partition, c.leaf))
                    || !movable.test(partition, leaf)) {
                return false;
            }
        }
        for (Copy copy : held) {
            copies.of(copy.partition).remove(copy);
            if (copy.state != CopyState.RETIRING) {
                servingChanged = true;
            }
            history.retired(copy.move("given up: leaf " + leaf + " gone, its slot wanted by a joining leaf", nowNanos));
        }
        changed(leaf);
        return true;
    }

    /** Every connection to {@code leaf} is gone (or it said it is draining). */
    public void leafLost(int leaf, long nowNanos) {
        if (!alive.lost(leaf, nowNanos)) {
            return;
        }
        for (Copy copy : copies.on(leaf)) {
            if (copy.state == CopyState.OPENING || copy.state == CopyState.CATCHING_UP) {
                fail(copy, "its leaf was lost while it " + (copy.state == CopyState.OPENING ? "opened" : "caught up"),
                        nowNanos);
            }
        }
        if (underReplicatedSinceNanos < 0) {
            underReplicatedSinceNanos = nowNanos;
        }
    }

    /**
     * {@code leaf}'s slot holds no leaf yet (a root with more leaf slots than leaves): not alive, so no
     * copy goes there, and not lost, so nothing is re-replicated from it nor reported gone. A leaf that
     * fills the slot is {@link #leafBack} once connected. Only for a slot that holds no copy.
     */
    public void leafVacant(int leaf) {
        alive.vacate(leaf);
    }

    /** {@code leaf} is connected again, with its whole target acknowledged. */
    public void leafBack(int leaf, long nowNanos) {
        alive.back(leaf);
    }

    /**
     * What {@code leaf}'s connections say now, every tick: {@link #leafLost} or {@link #leafBack}
     * when that differs from what the plan holds.
     *
     * @return whether it changed
     */
    public boolean leafSeen(int leaf, boolean up, long nowNanos) {
        if (up == alive.alive(leaf)) {
            return false;
        }
        if (up) {
            leafBack(leaf, nowNanos);
        } else {
            leafLost(leaf, nowNanos);
        }
        return true;
    }

    /** Whether the plan holds {@code leaf} alive. */
    public boolean alive(int leaf) {
        return alive.alive(leaf);
    }

    /** How long the last return to full replication took, from the leaf loss that began it; -1 for none yet. */
    public long lastFullReplicationNanos() {
        return lastFullReplicationNanos;
    }

    /**
     * {@code leaf} acknowledged its target of version {@code ackedVersion}; {@code open} lists the
     * partitions it has open. A copy opening there since that version or earlier serves if listed,
     * and is given up if not (it failed to open).
     */
    public void acked(int leaf, long ackedVersion, Set<Integer> open, long nowNanos) {
        for (Copy copy : copies.on(leaf)) {
            if (copy.state != CopyState.OPENING || copy.version > ackedVersion) {
                continue;
            }
            if (!open.contains(copy.partition)) {
                fail(copy, "the leaf did not open it", nowNanos);
                continue;
            }
            if (catchUp) {
                copy.state = CopyState.CATCHING_UP;
                copy.sinceNanos = nowNanos;
            } else {
                serve(copy, nowNanos);
            }
        }
        checkFull(nowNanos);
    }

    /**
     * The write path has {@code leaf}'s copy of {@code partition} in sync: a copy catching up serves
     * from now on (anything else is left as it is).
     */
    public void caughtUp(int partition, int leaf, long nowNanos) {
        Copy copy = copies.find(partition, leaf);
        if (copy != null && copy.state == CopyState.CATCHING_UP) {
            serve(copy, nowNanos);
            checkFull(nowNanos);
        }
    }

    private void serve(Copy copy, long nowNanos) {
        copy.state = CopyState.SERVING;
        copy.sinceNanos = nowNanos;
        servingChanged = true;
        history.opened(copy.move("serving", nowNanos));
        if (copy.replaces >= 0) {
            Copy source = copies.find(copy.partition, copy.replaces);
            if (source != null && source.state == CopyState.SERVING) {
                retire(source, nowNanos);
            }
        }
    }

    /** The copies catching up now, as {partition, leaf} pairs: ask the write path about each. */
    public List<int[]> catchingUp() {
        return copies.inState(CopyState.CATCHING_UP);
    }

    /**
     * The leaves holding a copy of {@code partition} that is not retiring (opening, catching up,
     * serving; on a live leaf or not), the starting assignment's first: the replicas the write path
     * keeps in sync.
     */
    public int[] keptCopies(int partition) {
        return copies.notRetiring(partition);
    }

    /**
     * Runs the rules at {@code nowNanos}.
     *
     * @param partitionLoad each partition's load over the window (any unit: leaf service time per
     *                      second), or null when not measured (selective replication and
     *                      rebalancing then do nothing)
     */
    public void tick(long nowNanos, double[] partitionLoad) {
        tick(nowNanos, partitionLoad, (partition, leaf) -> true);
    }

    /** Whether the write path holds a leaf's copy of a partition in sync (every acknowledged write). */
    @FunctionalInterface
    public interface InSync {
        boolean test(int partition, int leaf);
    }

    /**
     * As {@link #tick(long, double[])}, with the write path's view of which copies are in sync: a
     * partition's surplus copy retires only while every serving copy of it is in sync, so a copy that
     * returned behind (a leaf back after its copies were re-replicated) catches up before the copy
     * made in its absence, perhaps the only one holding every acknowledged write, is taken away.
     */
    public void tick(long nowNanos, double[] partitionLoad, InSync inSync) {
        tick(nowNanos, partitionLoad, inSync, (partition, leaf) -> true);
    }

    /**
     * As {@link #tick(long, double[], InSync)}; {@code movable} says which copies may move, to a leaf that
     * joined empty ({@link #fillEmptyLeaves}) or to balance load: the write path's primaries may not.
     */
    public void tick(long nowNanos, double[] partitionLoad, InSync inSync, InSync movable) {
        for (List<Copy> list : copies.all()) {
            for (Copy copy : List.copyOf(list)) {
                if (copy.state == CopyState.OPENING && nowNanos - copy.startedNanos >= settings.openTimeout().toNanos()) {
                    fail(copy, "not acknowledged open within " + settings.openTimeout(), nowNanos);
                } else if (copy.state == CopyState.CATCHING_UP
                        && nowNanos - copy.sinceNanos >= settings.openTimeout().toNanos()) {
                    fail(copy, "not caught up with the partition's writes within " + settings.openTimeout(), nowNanos);
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
        addMissing(nowNanos, partitionLoad);
        retireSurplus(nowNanos, inSync);
        if (settings.rebalancing() && partitionLoad != null && copies.opening() == 0) {
            Rebalancer.Choice move = rebalancer.choose(partitionLoad, copies.servingOn(alive.all()), alive.all(), nowNanos,
                    movable);
            if (move != null) {
                Copy copy = open(move.partition(), move.toLeaf(), Reason.REBALANCE, move.why(), nowNanos);
                copy.replaces = move.fromLeaf();
            }
        }
        fillEmptyLeaves(nowNanos, movable);
        checkFull(nowNanos);
    }

    /**
     * A live leaf that holds no copy (one that joined at run time, in a slot that was vacant) takes
     * copies from the leaves holding most until it holds its share (the copies on live leaves over the
     * live leaves, rounded down): one move at a time, each a {@link Reason#REBALANCE} copy that replaces
     * the source copy once it serves, so no partition is ever short meanwhile. Why counts, not load: a
     * new leaf must take copies without traffic, and the load rebalancer ({@link Rebalancer}) is off by
     * default; with it on, both may move copies to the new leaf. A copy {@code movable} refuses (the
     * write path's primary) stays.
     */
    private void fillEmptyLeaves(long nowNanos, InSync movable) {
        int live = alive.count();
        if (live < 2) {
            filling.clear();
            return;
        }
        int[] held = new int[leaves];
        int total = 0;
        for (List<Copy> list : copies.all()) {
            for (Copy copy : list) {
                if (copy.state != CopyState.RETIRING && alive.alive(copy.leaf)) {
                    held[copy.leaf]++;
                    total++;
                }
            }
        }
        int share = total / live;
        for (int leaf = 0; leaf < leaves; leaf++) {
            if (alive.alive(leaf) && held[leaf] == 0 && share > 0) {
                filling.add(leaf);
            }
        }
        filling.removeIf(leaf -> !alive.alive(leaf) || held[leaf] >= share);
        if (filling.isEmpty() || copies.opening() >= settings.maxOpening()) {
            return;
        }
        int to = filling.iterator().next();
        // Sources: the leaves holding at least two more than it, fullest first; the first movable copy goes.
        List<Integer> sources = new ArrayList<>();
        for (int leaf = 0; leaf < leaves; leaf++) {
            if (leaf != to && alive.alive(leaf) && held[leaf] >= held[to] + 2) {
                sources.add(leaf);
            }
        }
        sources.sort(Comparator.comparingInt((Integer leaf) -> -held[leaf]).thenComparingInt(leaf -> leaf));
        for (int from : sources) {
            for (int p = 0; p < copies.partitions(); p++) {
                List<Copy> list = copies.of(p);
                boolean candidate = list.stream().anyMatch(c -> c.leaf == from && c.state == CopyState.SERVING)
                        && list.stream().noneMatch(c -> c.leaf == to)
                        && list.stream().noneMatch(c -> c.state == CopyState.OPENING || c.state == CopyState.CATCHING_UP);
                Long until = avoidUntil.get(p * leaves + to);
                if (candidate && (until == null || nowNanos - until >= 0) && movable.test(p, from)) {
                    Copy copy = open(p, to, Reason.REBALANCE, "leaf " + to + " joined holding no copy: partition " + p
                            + "'s copy on leaf " + from + " (holding " + held[from] + ") moves to it, up to its share of "
                            + share, nowNanos);
                    copy.replaces = from;
                    return;
                }
            }
        }
        if (sources.isEmpty()) {
            filling.remove(to);
        }
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
        return Math.min(alive.count(), replicas + extra);
    }

    /** Copies that count towards a partition's replicas: not retiring, on a leaf alive or within its grace. */
    private int counted(int partition, long nowNanos) {
        int count = 0;
        for (Copy copy : copies.of(partition)) {
            if (copy.state != CopyState.RETIRING && !gone(copy.leaf, nowNanos)) {
                count++;
            }
        }
        return count;
    }

    private boolean gone(int leaf, long nowNanos) {
        return settings.reReplication() && alive.lostFor(leaf, settings.grace().toNanos(), nowNanos);
    }

    private void addMissing(long nowNanos, double[] partitionLoad) {
        List<Integer> order = new ArrayList<>();
        for (int p = 0; p < copies.partitions(); p++) {
            if (counted(p, nowNanos) < desired(p)) {
                order.add(p);
            }
        }
        order.sort(Comparator.comparingInt((Integer p) -> counted(p, nowNanos) - desired(p)).thenComparingInt(p -> p));
        for (int p : order) {
            while (copies.opening() < settings.maxOpening() && counted(p, nowNanos) < desired(p)) {
                int target = leastLoaded(p, nowNanos, partitionLoad);
                if (target < 0) {
                    break;
                }
                Copy lost = copies.of(p).stream().filter(c -> gone(c.leaf, nowNanos)).findFirst().orElse(null);
                if (lost != null && counted(p, nowNanos) < replicas) {
                    open(p, target, Reason.RE_REPLICATION, "replaces the copy on leaf " + lost.leaf + ", lost "
                            + (nowNanos - alive.lostSinceNanos(lost.leaf)) / 1_000_000 + " ms before", nowNanos);
                } else {
                    open(p, target, Reason.HOT, hot.why(p), nowNanos);
                }
            }
        }
    }

    /**
     * Where a new copy of {@code partition} goes: the least loaded live leaf holding none (by measured
     * load when there is some: by copy count alone, a hot partition's extra copy often lands on a leaf
     * serving another hot one and makes the tail worse; docs/simulation.md), or -1.
     */
    private int leastLoaded(int partition, long nowNanos, double[] partitionLoad) {
        double[] leafLoad = partitionLoad == null ? null : copies.leafLoads(partitionLoad, alive.all());
        return copies.leastLoaded(partition, leaf -> {
            Long until = avoidUntil.get(partition * leaves + leaf);
            return alive.alive(leaf) && (until == null || nowNanos - until >= 0);
        }, leafLoad);
    }

    private void retireSurplus(long nowNanos, InSync inSync) {
        for (int p = 0; p < copies.partitions(); p++) {
            List<Copy> list = copies.of(p);
            if (list.stream().anyMatch(c -> c.state == CopyState.OPENING || c.state == CopyState.CATCHING_UP)) {
                continue;
            }
            int partition = p;
            while (true) {
                List<Copy> live = list.stream().filter(c -> c.state == CopyState.SERVING && alive.alive(c.leaf)).toList();
                if (live.size() <= Math.max(1, desired(p))) {
                    break;
                }
                if (list.stream().anyMatch(c -> c.state == CopyState.SERVING && !inSync.test(partition, c.leaf))) {
                    break; // one still catching up with the writes: the others may be all that holds them
                }
                Copy victim = live.stream().filter(c -> c.reason != Reason.ORIGINAL)
                        .max(Comparator.comparingInt((Copy c) -> copies.on(c.leaf).size()).thenComparingInt(c -> c.leaf))
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
        copies.of(partition).add(copy);
        changed(leaf);
        copy.version = version[leaf];
        history.started(reason);
        return copy;
    }

    private void retire(Copy copy, long nowNanos) {
        copy.state = CopyState.RETIRING;
        copy.sinceNanos = nowNanos;
        servingChanged = true;
        history.retired(copy.move("retired", nowNanos));
    }

    private void fail(Copy copy, String why, long nowNanos) {
        copies.of(copy.partition).remove(copy);
        changed(copy.leaf);
        avoidUntil.put(copy.partition * leaves + copy.leaf, nowNanos + settings.openTimeout().toNanos());
        history.failed(copy.move("failed: " + why, nowNanos));
    }

    private void changed(int leaf) {
        version[leaf]++;
        changedLeaves.add(leaf);
    }

    /** Partitions with fewer serving copies on live leaves than they should have. */
    public int underReplicated() {
        int[][] serving = copies.servingOn(alive.all());
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

    /** Every copy, its reason and state, and each leaf's target version: what the placement leader shares. */
    public PlacementPlan plan() {
        return copies.plan(version);
    }

    /** The plan as searches and leaves see it; a new object only when something changed. */
    public PlacementSnapshot snapshot() {
        if (snapshot != null && !servingChanged && takesNoNewTargets()) {
            return snapshot;
        }
        snapshot = copies.snapshot(version);
        servingChanged = false;
        return snapshot;
    }

    private boolean takesNoNewTargets() {
        return Arrays.equals(snapshot.targetVersion(), version);
    }

    /** What the controllers did and are doing. */
    public PlacementReport report(long nowNanos) {
        List<PlacementReport.CopyView> views = copies.views();
        List<Integer> gone = new ArrayList<>();
        for (int leaf = 0; leaf < leaves; leaf++) {
            if (gone(leaf, nowNanos)) {
                gone.add(leaf);
            }
        }
        return history.report(views, gone, underReplicated(), underReplicatedSinceNanos, lastFullReplicationNanos);
    }
}
