package io.hedgerow.root.placement;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Runs the root's {@link Placement}: four times a second it turns the leaves' states into events
 * (a leaf lost, a leaf back: from its connections and, with {@code --zk}, its membership,
 * {@link #up}), reads the partitions' load (with {@code --zk}, as the leaves publish it), ticks the plan, publishes the serving
 * assignment to {@link ClusterState} (copy-on-write: searches read it without a lock) and tells the
 * leaves whose target changed. Acknowledgements come from the leaf connections' event loops and are
 * handed to the placement's thread.
 *
 * <p><b>Live writes.</b> The write path keeps every copy the plan holds in sync (told on each
 * change, {@link CopyCatchUp#copies}): a copy added joins its partition's replicas out of sync and
 * is caught up from the primary (its log, or a snapshot of its copy first when the log no longer
 * reaches back far enough); the plan lets it serve searches only once the write path has it in
 * sync ({@link Placement#caughtUp}), checked every tick. A copy retiring stops taking writes.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the plan is confined to one thread; the
 * report and meters read a volatile snapshot. An acknowledgement of a target older than the
 * leaf's current one (another connection's handshake arriving last) gets the leaf its current
 * target again, at most every two seconds.
 */
public final class PlacementService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PlacementService.class.getName());
    private static final long TICK_MILLIS = 250;
    private static final long RESEND_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ClusterState cluster;
    private final PartitionAssignment original;
    private final Placement placement;
    private final long loadWindowNanos;
    /** Over the load source in use ({@link #loadFromLeaves}); started afresh when the source changes. */
    private LoadWindow window;
    /** Whether the window holds the leaves' published load (else this root's own); the placement's thread. */
    private volatile boolean loadFromLeaves;
    private volatile double[] lastLoad;
    private final Ticker ticker;
    private final IntConsumer reassign;
    private final Consumer<PlacementPlan> shared;
    /** The last plan handed to {@link #shared}; the placement's thread only. */
    private PlacementPlan sharedPlan;
    private final CopyCatchUp writes;
    private final boolean measureLoad;
    private final long[] ackedVersion;
    private final long[] sentNanos;
    /** What the write path was last told each partition's copies are. */
    private final int[][] toldCopies;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "placement");
        t.setDaemon(true);
        return t;
    });
    private volatile PlacementReport report;

    /**
     * @param reassign sends a leaf its current target ({@code FanOut::reassign})
     * @param writes   the write path, which keeps the plan's copies in sync ({@code DocumentWriter})
     */
    public PlacementService(ClusterState cluster, PlacementSettings settings, Ticker ticker, IntConsumer reassign,
            CopyCatchUp writes) {
        this(cluster, settings, ticker, reassign, writes, null, null);
    }

    /**
     * As the placement leader of roots that share a plan ({@link SharedPlacement}).
     *
     * @param from   the plan to continue from (the last one stored), or null to start from the cluster's
     *               assignment as it is
     * @param shared told each new plan, on the placement's thread (it must not block); null for a root
     *               that shares none
     */
    public PlacementService(ClusterState cluster, PlacementSettings settings, Ticker ticker, IntConsumer reassign,
            CopyCatchUp writes, PlacementPlan from, Consumer<PlacementPlan> shared) {
        this.cluster = cluster;
        this.original = cluster.assignment();
        this.ticker = ticker;
        this.reassign = reassign;
        this.writes = writes;
        this.shared = shared;
        this.placement = from == null
                ? new Placement(original, cluster.config().replicas(), settings, ticker.nanoTime(), true)
                : new Placement(from, cluster.config().replicas(), settings, ticker.nanoTime(), true);
        this.toldCopies = new int[original.partitions()][];
        for (int p = 0; p < toldCopies.length; p++) {
            // What the write path was told: the configured replicas, or (a follower's) the stored plan's.
            toldCopies[p] = from == null ? original.replicasOf(p) : from.keptCopies(p);
        }
        this.loadWindowNanos = settings.loadWindow().toNanos();
        this.window = new LoadWindow(loadWindowNanos);
        this.measureLoad = settings.measuresLoad();
        int leaves = cluster.leaves().size();
        this.ackedVersion = new long[leaves];
        this.sentNanos = new long[leaves];
        markVacant();
        this.report = placement.report(ticker.nanoTime());
    }

    /** Starts listening to acknowledgements and ticking. */
    public PlacementService start() {
        cluster.onAssignAck((leaf, version, open, error) -> {
            try {
                thread.execute(() -> acked(leaf, version, open));
            } catch (RejectedExecutionException e) {
                // closed (a leader that stepped down): the ack is for the next leader's own sends
            }
        });
        thread.scheduleWithFixedDelay(this::tickSafely, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** What the controllers did and are doing, as of the last tick or acknowledgement. */
    public PlacementReport report() {
        return report;
    }

    /** Registers the placement's meters: copies started by kind, opened, failed, retired; partitions short. */
    public void registerMeters(MeterRegistry registry) {
        registerMeters(registry, this::report);
    }

    /**
     * The placement's meters, read from {@code reports} (null while no placement runs here, as on a root
     * that follows another's plan: the counts read 0 then, and restart from 0 on a root that takes over,
     * which Prometheus reads as a counter reset).
     */
    public static void registerMeters(MeterRegistry registry, Supplier<PlacementReport> reports) {
        counter(registry, reports, "re_replication", PlacementReport::reReplications);
        counter(registry, reports, "hot", PlacementReport::hotCopies);
        counter(registry, reports, "rebalance", PlacementReport::rebalanceMoves);
        FunctionCounter.builder("hedgerow.placement.copies.ended", reports, r -> read(r, PlacementReport::opened))
                .tag("outcome", "serving").description("Copies acknowledged open and serving").register(registry);
        FunctionCounter.builder("hedgerow.placement.copies.ended", reports, r -> read(r, PlacementReport::failed))
                .tag("outcome", "failed").description("Copies given up (an error, a timeout, their leaf lost)")
                .register(registry);
        FunctionCounter.builder("hedgerow.placement.copies.ended", reports, r -> read(r, PlacementReport::retired))
                .tag("outcome", "retired").description("Copies taken out of service").register(registry);
        Gauge.builder("hedgerow.placement.under_replicated", reports, r -> read(r, PlacementReport::underReplicated))
                .description("Partitions with fewer serving copies on live leaves than they should have")
                .register(registry);
        Gauge.builder("hedgerow.placement.opening", reports, r -> read(r, report -> report.copies().stream()
                        .filter(c -> c.state() == Placement.CopyState.OPENING
                                || c.state() == Placement.CopyState.CATCHING_UP).count()))
                .description("Copies opening now, or open and catching up with the partition's writes").register(registry);
        Gauge.builder("hedgerow.placement.full_replication.last.seconds", reports, r -> {
                    PlacementReport report = r.get();
                    return report == null || report.lastFullReplicationNanos() < 0 ? Double.NaN
                            : report.lastFullReplicationNanos() / 1e9;
                })
                .description("How long the last return to full replication took, from the leaf loss that began it")
                .register(registry);
    }

    private static double read(Supplier<PlacementReport> reports, ToDoubleFunction<PlacementReport> value) {
        PlacementReport report = reports.get();
        return report == null ? 0 : value.applyAsDouble(report);
    }

    private static void counter(MeterRegistry registry, Supplier<PlacementReport> reports, String kind,
            ToDoubleFunction<PlacementReport> value) {
        FunctionCounter.builder("hedgerow.placement.copies.started", reports, r -> read(r, value))
                .tag("kind", kind).description("Copies the placement started opening, by why").register(registry);
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "placement tick failed", e);
        }
    }

    private void tick() {
        long now = ticker.nanoTime();
        MembershipView members = cluster.membership();
        markVacant();
        for (int leaf = 0; leaf < ackedVersion.length; leaf++) {
            if (cluster.leaf(leaf).vacant()) {
                continue;
            }
            boolean up = up(cluster.leaf(leaf), members, leaf);
            if (placement.leafSeen(leaf, up, now)) {
                LOG.log(System.Logger.Level.INFO, "placement: leaf {0} {1}{2}", leaf, up ? "back" : "lost",
                        !up && members != null && members.down(leaf) ? " (its membership znode is gone)" : "");
            }
        }
        if (members != null && !members.unconfigured().isEmpty()) {
            giveUpAGoneLeaf(members, now);
        }
        double[] load = measureLoad ? window.add(loadTotals(members), now) : null;
        lastLoad = load;
        placement.tick(now, load, writes::caughtUp, (partition, leaf) -> !writes.primaryAt(partition, leaf));
        for (int[] copy : placement.catchingUp()) {
            if (writes.caughtUp(copy[0], copy[1])) {
                placement.caughtUp(copy[0], copy[1], now);
            }
        }
        publish(now);
        for (int leaf = 0; leaf < ackedVersion.length; leaf++) {
            if (placement.alive(leaf) && ackedVersion[leaf] < cluster.placement().targetVersion()[leaf]
                    && now - sentNanos[leaf] >= RESEND_NANOS) {
                send(leaf, now);
            }
        }
    }

    /** Slots no leaf holds yet are neither alive nor lost to the placement. */
    /**
     * A leaf waits for a leaf slot (registered, none free): the copies of the leaf gone from membership
     * longest are given up, when the partitions they hold are fully replicated and in sync without it
     * ({@link Placement#forgetGoneLeaf}), so that its slot holds nothing and the waiting leaf may take
     * it over once that leaf has been gone for the slot's grace ({@link io.hedgerow.root.cluster.SlotReuse}).
     */
    private void giveUpAGoneLeaf(MembershipView members, long now) {
        List<Integer> gone = new ArrayList<>();
        for (int leaf = 0; leaf < ackedVersion.length; leaf++) {
            if (!cluster.leaf(leaf).vacant() && members.down(leaf)) {
                gone.add(leaf);
            }
        }
        gone.sort(Comparator.comparingLong(leaf -> members.leaves().get(leaf).sinceMillis()));
        for (int leaf : gone) {
            if (placement.forgetGoneLeaf(leaf, now, writes::caughtUp, (p, l) -> !writes.primaryAt(p, l))) {
                LOG.log(System.Logger.Level.WARNING, "placement: the copies of leaf {0} ({1}), gone from membership,"
                        + " are given up: a registered leaf waits for a leaf slot, and its partitions are fully"
                        + " replicated and in sync without it", leaf, cluster.leaf(leaf).name());
                return;
            }
        }
    }

    private void markVacant() {
        for (int leaf = 0; leaf < ackedVersion.length; leaf++) {
            if (cluster.leaf(leaf).vacant()) {
                placement.leafVacant(leaf);
            }
        }
    }

    /**
     * Whether the placement holds {@code leaf} up: either source saying down makes it down. Its
     * connections (ready, not draining: a leaf in membership but not connected yet is not up), and,
     * with {@code --zk}, its membership: a leaf whose znode vanished (killed, or paused past its
     * session timeout) is down at once, though this root's connections to it may not have noticed.
     */
    static boolean up(LeafStatus status, MembershipView members, int leaf) {
        boolean connected = status.readyConnections() > 0 && !status.isDraining();
        return connected && (members == null || !members.down(leaf));
    }

    /**
     * The cumulative load the window reads: with {@code --zk}, once any leaf published some, the sum
     * the leaves published (every root's traffic); else this root's own. The window starts afresh when
     * the source changes, as the two counters are not comparable.
     */
    private long[] loadTotals(MembershipView members) {
        boolean fromLeaves = members != null && members.loadPublished();
        if (fromLeaves != loadFromLeaves) {
            loadFromLeaves = fromLeaves;
            window = new LoadWindow(loadWindowNanos);
            LOG.log(System.Logger.Level.INFO, "placement: partition load from now on {0}",
                    fromLeaves ? "as the leaves publish it (every root's traffic)" : "as this root sees it");
        }
        return fromLeaves ? members.loadTotals() : cluster.partitionLoad().totals();
    }

    /**
     * Each partition's load (service time per second over the window) as of the last tick, or null
     * when none is measured yet or placement reads no load.
     */
    public double[] partitionLoad() {
        double[] load = lastLoad;
        return load == null ? null : load.clone();
    }

    /** Whether the load comes from the leaves' published counters (with {@code --zk}) rather than this root's. */
    public boolean loadFromLeaves() {
        return loadFromLeaves;
    }

    private void acked(int leaf, long version, Set<Integer> open) {
        long now = ticker.nanoTime();
        ackedVersion[leaf] = Math.max(ackedVersion[leaf], version);
        placement.acked(leaf, version, open, now);
        for (int[] copy : placement.catchingUp()) {
            if (copy[1] == leaf) {
                writes.catchUpSoon(copy[0]);
            }
        }
        publish(now);
    }

    private void publish(long now) {
        // The write path learns of a copy before its leaf is told to open it, so no write misses it.
        for (int p = 0; p < toldCopies.length; p++) {
            int[] kept = placement.keptCopies(p);
            if (!Arrays.equals(kept, toldCopies[p])) {
                writes.copies(p, kept);
                toldCopies[p] = kept;
            }
        }
        PlacementSnapshot snapshot = placement.snapshot();
        if (snapshot != cluster.placement()) {
            cluster.publish(snapshot);
        }
        PlacementPlan plan = shared == null ? null : placement.plan();
        if (plan != null && !plan.equals(sharedPlan)) {
            // Before the leaves are told: a follower may route by the plan a moment before they open it,
            // as this root does (the copies not serving yet are only in the targets).
            sharedPlan = plan;
            shared.accept(plan);
        }
        for (int leaf : placement.takeChangedLeaves()) {
            send(leaf, now);
        }
        PlacementReport before = report;
        long lastFull = before == null ? -1 : before.lastFullReplicationNanos();
        report = placement.report(now);
        if (before != null) {
            logChanges(before, report);
        }
        if (report.lastFullReplicationNanos() >= 0 && report.lastFullReplicationNanos() != lastFull) {
            LOG.log(System.Logger.Level.INFO, "placement: every partition has its replicas again, {0} s after the"
                    + " leaf loss that began it", String.format(Locale.ROOT, "%.1f",
                    report.lastFullReplicationNanos() / 1e9));
        }
    }

    /** Logs the copies started and ended since {@code before}: the root's log then times every move. */
    private static void logChanges(PlacementReport before, PlacementReport now) {
        if (now.hotCopies() > before.hotCopies()) {
            LOG.log(System.Logger.Level.INFO, "placement: {0} extra copies of hot partitions started so far",
                    now.hotCopies());
        }
        if (now.rebalanceMoves() > before.rebalanceMoves()) {
            for (PlacementReport.CopyView copy : now.copies()) {
                if (copy.reason() == Placement.Reason.REBALANCE && copy.state() == Placement.CopyState.OPENING
                        && copy.startedNanos() == copy.sinceNanos()) {
                    LOG.log(System.Logger.Level.INFO, "placement: move {0} started: partition {1} to leaf {2} ({3})",
                            now.rebalanceMoves(), copy.partition(), copy.leaf(), copy.why());
                }
            }
        }
        long ended = now.opened() + now.failed() + now.retired() - before.opened() - before.failed() - before.retired();
        List<PlacementReport.Move> recent = now.recent();
        for (int i = Math.max(0, recent.size() - (int) Math.min(ended, recent.size())); i < recent.size(); i++) {
            PlacementReport.Move move = recent.get(i);
            String took = move.reason() == Placement.Reason.ORIGINAL ? "" : String.format(Locale.ROOT,
                    ", %.1f s after it started", (move.endedNanos() - move.startedNanos()) / 1e9);
            LOG.log(System.Logger.Level.INFO, "placement: partition {0}''s copy on leaf {1} ({2}): {3}{4}",
                    move.partition(), move.leaf(), move.reason().name().toLowerCase(Locale.ROOT), move.outcome(), took);
        }
    }

    private void send(int leaf, long now) {
        sentNanos[leaf] = now;
        reassign.accept(leaf);
    }

    /** Stops ticking; acknowledgements from now on go nowhere (a root that follows another's plan sends none). */
    @Override
    public void close() {
        cluster.onAssignAck((leaf, version, open, error) -> { });
        thread.shutdownNow();
    }
}
