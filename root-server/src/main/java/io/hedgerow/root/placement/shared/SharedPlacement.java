package io.hedgerow.root.placement.shared;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.LeadershipListener;
import io.hedgerow.coordination.PlacementLeader;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.placement.CopyCatchUp;
import io.hedgerow.root.placement.PlacementLeadership;
import io.hedgerow.root.placement.PlacementPlan;
import io.hedgerow.root.placement.PlacementReport;
import io.hedgerow.root.placement.PlacementService;
import io.hedgerow.root.placement.PlacementSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

/**
 * One placement decider among the roots of a cluster ({@code --zk}): every root joins a
 * {@link PlacementLeader} latch; the leader alone runs a {@link PlacementService} (re-replication,
 * hot copies, rebalancing, and telling the leaves their targets) and writes each new
 * {@link PlacementPlan} to one versioned znode by compare-and-set. The other roots watch that znode
 * (a {@link CuratorCache}) and route by it: they publish its snapshot for searches and tell their write
 * path its copies. A root that gains the lead reads the stored plan afresh and continues from it, so
 * copies that served keep serving, and its first write (the plan as it found it) over the version it
 * read fences off the previous leader: a write of that one, paused or cut off, then fails the
 * compare-and-set.
 *
 * <p>Why a latch and compare-and-set both: the latch alone is advisory (a leader paused past its
 * session still believes it leads until it hears otherwise), and the compare-and-set alone would let
 * two roots take turns overwriting each other's decisions. Together, one root decides, and one whose
 * write was overtaken stops, or, if it still holds the latch, starts again from what is stored.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Every ZooKeeper call and every change of role
 * runs on one thread of its own ("placement-coordination"): never on an event loop, never on the
 * answer path, which reads the volatile snapshot in {@link ClusterState}. The stored plan names leaves
 * by address, each root mapping them to its own leaf slots (a leaf it has not met takes a vacant slot);
 * a plan that does not fit this root (another number of partitions, or leaves it has no slot for) is
 * not applied, and logged.
 */
public final class SharedPlacement implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SharedPlacement.class.getName());
    private static final long RETRY_MILLIS = 1000;
    /** How often the leader tells every leaf its target again, however sure it is the leaf has it. */
    private static final long RESEND_MILLIS = 5000;

    private final ClusterState cluster;
    private final PlacementSettings settings;
    private final Ticker ticker;
    private final IntConsumer reassign;
    private final CopyCatchUp writes;
    private final String self;
    private final CoordinationClient client;
    private final PlanStore store;
    private final CuratorCache cache;
    private final PlacementLeader latch;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "placement-coordination");
        t.setDaemon(true);
        return t;
    });

    // Confined to the thread:
    /** The placement while this root leads, else null. */
    private PlacementService service;
    /** The version of the znode last read or written; -1 for none. */
    private int storedVersion = -1;
    /** The leader's latest plan, and the last one written. */
    private PlacementPlan pending;
    private PlacementPlan written;
    private boolean retryArmed;
    /** The leader's periodic resend of every leaf's target; null while following. */
    private ScheduledFuture<?> resends;
    /** What the write path was last told each partition's copies are. */
    private final int[][] toldCopies;

    private volatile PlacementService reporting;
    private volatile PlacementLeadership leadership;

    private SharedPlacement(CoordinationClient client, String self, ClusterState cluster, PlacementSettings settings,
            Ticker ticker, IntConsumer reassign, CopyCatchUp writes) {
        this.client = client;
        this.self = self;
        this.cluster = cluster;
        this.settings = settings;
        this.ticker = ticker;
        this.reassign = reassign;
        this.writes = writes;
        this.store = new PlanStore(client, slotMapper(cluster));
        this.toldCopies = new int[cluster.config().partitions()][];
        for (int p = 0; p < toldCopies.length; p++) {
            toldCopies[p] = cluster.assignment().replicasOf(p);
        }
        this.leadership = new PlacementLeadership(self, false, null,
                "the configured assignment: no placement plan read from ZooKeeper yet", -1);
        this.cache = CuratorCache.build(client.curator(), store.path(), CuratorCache.Options.SINGLE_NODE_CACHE);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, now) -> run(() -> stored(now)))
                .build());
        this.latch = new PlacementLeader(client, self, new LeadershipListener() {
            @Override
            public void gained() {
                run(SharedPlacement.this::lead);
            }

            @Override
            public void lost() {
                run(() -> follow("it lost the placement leadership"));
            }
        });
    }

    /**
     * Connects to ZooKeeper (its own session), starts watching the stored plan and joins the election.
     *
     * @param self     this root's name among the participants (shown in {@code /cluster})
     * @param reassign sends a leaf its current target ({@code FanOut::reassign}); only the leader's are sent
     * @param writes   the write path, told each partition's copies by the plan routed by
     */
    public static SharedPlacement start(CoordinationSettings coordination, String self, ClusterState cluster,
            PlacementSettings settings, Ticker ticker, IntConsumer reassign, CopyCatchUp writes)
            throws CoordinationException {
        CoordinationClient client = CoordinationClient.connect(coordination);
        SharedPlacement shared;
        try {
            shared = new SharedPlacement(client, self, cluster, settings, ticker, reassign, writes);
            cluster.placementReport(shared::report);
            cluster.placementLeadership(shared::leadership);
            shared.cache.start();
            shared.latch.start();
        } catch (CoordinationException | RuntimeException e) {
            client.close();
            throw e;
        }
        return shared;
    }

    /**
     * Publishes the stored plan's snapshot to {@code cluster}, read once through a session of its own,
     * before the root connects to its leaves: each connection's handshake sends the leaf its target from
     * the published snapshot, and a root joining with the configured assignment would otherwise take
     * back the copies the leader moved. Nothing is published when no plan is stored or it does not fit.
     *
     * @return what was published, for the log
     */
    public static String routeByStoredPlan(CoordinationSettings coordination, ClusterState cluster)
            throws CoordinationException {
        try (CoordinationClient client = CoordinationClient.connect(coordination)) {
            Optional<StoredPlan> stored = new PlanStore(client, slotMapper(cluster)).read();
            if (stored.isEmpty()) {
                return "no placement plan stored yet: the configured assignment";
            }
            PlacementPlan plan = stored.get().plan();
            if (plan == null) {
                return stored.get().misfit() + ": the configured assignment";
            }
            if (plan.leaves() != cluster.leaves().size() || plan.partitions() != cluster.config().partitions()) {
                return "the stored placement plan is for " + plan.leaves() + " leaves and " + plan.partitions()
                        + " partitions (expected: " + cluster.leaves().size() + " and " + cluster.config().partitions()
                        + "): the configured assignment";
            }
            cluster.publish(plan.snapshot());
            return "the placement plan " + stored.get().leader() + " stored (znode version " + stored.get().version()
                    + ")";
        }
    }

    /** The placement's report while this root leads; null while it follows. */
    public PlacementReport report() {
        PlacementService now = reporting;
        return now == null ? null : now.report();
    }

    /** The partition load the placement used at its last tick while this root leads; null otherwise. */
    public double[] partitionLoad() {
        PlacementService now = reporting;
        return now == null ? null : now.partitionLoad();
    }

    /** Registers the placement's meters, read from whichever placement this root runs (none while it follows). */
    public void registerMeters(MeterRegistry registry) {
        PlacementService.registerMeters(registry, this::report);
    }

    /** Who leads, and where this root's plan came from. */
    public PlacementLeadership leadership() {
        return leadership;
    }

    /** This root's ZooKeeper session (tests end it to hand the lead over). */
    public CoordinationClient coordination() {
        return client;
    }

    private void lead() {
        if (service != null || !latch.hasLeadership()) {
            return;
        }
        Optional<StoredPlan> stored;
        try {
            stored = store.read();
        } catch (CoordinationException e) {
            LOG.log(System.Logger.Level.WARNING, "placement: leading, but the stored plan could not be read (tried"
                    + " again in a second): " + e.getMessage());
            thread.schedule(this::lead, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        PlacementPlan from = stored.map(StoredPlan::plan).filter(this::fits).orElse(null);
        storedVersion = stored.map(StoredPlan::version).orElse(-1);
        if (from != null) {
            route(from);
        }
        written = null;
        pending = null;
        PlacementService[] owner = new PlacementService[1];
        owner[0] = new PlacementService(cluster, settings, ticker, reassign, writes, from,
                plan -> run(() -> share(owner[0], plan)));
        service = owner[0];
        // Every leaf its target again now and then: another root's handshake (one that joined or
        // reconnected with an older plan) may have told it another; this one's is the one that stands.
        resends = thread.scheduleWithFixedDelay(() -> {
            if (service == owner[0]) {
                for (int leaf = 0; leaf < cluster.leaves().size(); leaf++) {
                    reassign.accept(leaf);
                }
            }
        }, RESEND_MILLIS, RESEND_MILLIS, TimeUnit.MILLISECONDS);
        reporting = service;
        String source = stored.isEmpty() ? "the configured assignment (no plan was stored)"
                : from == null ? "the configured assignment (the stored plan does not fit this root's leaves)"
                : "the plan " + stored.get().leader() + " stored (znode version " + storedVersion + "), continued";
        leadership = new PlacementLeadership(self, true, self, source, storedVersion);
        LOG.log(System.Logger.Level.INFO, "placement: this root ({0}) leads, from {1}", self, source);
        service.start();
    }

    private void follow(String why) {
        if (service == null) {
            return;
        }
        resends.cancel(false);
        resends = null;
        service.close();
        service = null;
        reporting = null;
        // The write path was told the copies of the last plan this root made.
        PlacementPlan last = pending != null ? pending : written;
        if (last != null) {
            for (int p = 0; p < toldCopies.length; p++) {
                toldCopies[p] = last.keptCopies(p);
            }
        }
        leadership = new PlacementLeadership(self, false, leadership.leader(),
                "this root's own plan until " + why + "; the stored plan from now on", storedVersion);
        LOG.log(System.Logger.Level.INFO, "placement: this root ({0}) no longer leads: {1}", self, why);
        ChildData now = cache.get(store.path()).orElse(null);
        if (now != null) {
            stored(now);
        }
    }

    /** A plan the leader made: written over the version last known (the newest only, if several wait). */
    private void share(PlacementService from, PlacementPlan plan) {
        if (service != from) { // a plan of a service stopped since
            return;
        }
        pending = plan;
        flush();
    }

    private void flush() {
        retryArmed = false;
        if (service == null || pending == null || pending.equals(written)) {
            return;
        }
        Optional<StoredPlan> result;
        try {
            result = store.write(self, pending, storedVersion);
        } catch (CoordinationException e) {
            LOG.log(System.Logger.Level.WARNING, "placement: the plan could not be stored (tried again in a second): "
                    + e.getMessage());
            if (!retryArmed) {
                retryArmed = true;
                thread.schedule(this::flush, RETRY_MILLIS, TimeUnit.MILLISECONDS);
            }
            return;
        }
        if (result.isEmpty()) {
            // Another root wrote since: this one was deposed, or it holds the latch again after a lost
            // session and must start over from what is stored rather than overwrite it.
            follow("another root wrote the stored plan over version " + storedVersion);
            run(this::lead);
            return;
        }
        written = result.get().plan();
        storedVersion = result.get().version();
        leadership = new PlacementLeadership(self, true, self, leadership.source(), storedVersion);
    }

    /** The stored plan changed (an event of the cache). */
    private void stored(ChildData data) {
        int version = data.getStat().getVersion();
        WrittenPlan written;
        try {
            written = PlanCodec.read(data.getData());
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "placement: ignoring the stored plan: " + e.getMessage());
            return;
        }
        if (service != null) {
            // The leader only asks who wrote it: no slot is filled for a plan it does not route by.
            if (version > storedVersion && !written.leader().equals(self)) {
                follow(written.leader() + " wrote the stored plan (znode version " + version + ")");
                run(this::lead);
            }
            return;
        }
        StoredPlan plan;
        try {
            // Reading was pure; the mapper fills slots for the plan's new leaves only once it fits, all or none.
            plan = slotMapper(cluster).toSlots(written, version);
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.WARNING, "placement: ignoring the stored plan: " + e.getMessage());
            return;
        }
        if (plan.plan() == null) {
            LOG.log(System.Logger.Level.WARNING, "placement: " + plan.misfit() + "; not applied");
            return;
        }
        if (!fits(plan.plan())) {
            return;
        }
        storedVersion = plan.version();
        route(plan.plan());
        leadership = new PlacementLeadership(self, false, plan.leader(), "the plan " + plan.leader()
                + " stored (znode version " + plan.version() + ")", plan.version());
    }

    private static PlanSlotMapper slotMapper(ClusterState cluster) {
        return new PlanSlotMapper(LeafSlots.of(cluster), cluster.config().partitions());
    }

    /** Searches and writes go by {@code plan} from now on. */
    private void route(PlacementPlan plan) {
        // The write path first, as the leader's service does: no write misses a copy searches may read.
        for (int p = 0; p < toldCopies.length; p++) {
            int[] kept = plan.keptCopies(p);
            if (!Arrays.equals(kept, toldCopies[p])) {
                writes.copies(p, kept);
                toldCopies[p] = kept;
            }
        }
        cluster.publish(plan.snapshot());
    }

    private boolean fits(PlacementPlan plan) {
        if (plan.leaves() == cluster.leaves().size() && plan.partitions() == cluster.config().partitions()) {
            return true;
        }
        LOG.log(System.Logger.Level.WARNING, "placement: the stored plan is for " + plan.leaves() + " leaves and "
                + plan.partitions() + " partitions (expected: " + cluster.leaves().size() + " and "
                + cluster.config().partitions() + ", as this root's --leaves and index); not applied");
        return false;
    }

    /** Runs {@code task} on the coordination thread; dropped once closed (Curator may still call in). */
    private void run(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** Stops the placement if it runs, leaves the election, stops watching and ends the session. */
    @Override
    public void close() {
        try {
            thread.submit(() -> follow("the root is closing")).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            LOG.log(System.Logger.Level.WARNING, "placement: stopping the placement at close", e);
        }
        cache.close();
        thread.shutdownNow();
        client.close();
    }
}
