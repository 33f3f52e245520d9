package io.hedgerow.root.sim;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.fanout.DetachedRoot;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.tail.IndexQueryParser;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A discrete-event simulation of one root in front of thousands of modelled leaves ({@link
 * SimLeaf}), on a virtual clock ({@link EventQueue}). Searches arrive as a Poisson process; each
 * runs through the production request path ({@link DetachedRoot}: the real {@code SearchRun},
 * replica choice, hedge delay, budget, tied requests, canaries and good-enough cutoff), which is
 * this class's {@link DetachedRoot.Wire}: it carries copies and cancels over a modelled network,
 * and the run's timer on the virtual clock. Nothing of a policy is modelled here. With {@code hits},
 * a search's answers carry hits from that many of its partitions, and the root's own fetch phase
 * fetches their stored fields and snippets from the leaves, as a default request's are.
 *
 * <p>A run is a function of its config, seed included: one thread, events in time order and ties
 * in scheduling order, every random draw from generators split off the seed.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe; {@link #run} runs on the calling thread.
 */
public final class Simulation implements DetachedRoot.Wire {
    private static final String QUERY = "hedgerow";
    private static final int[] NO_HITS = {};
    /** Latencies in microseconds, up to an hour, 3 significant digits. */
    private static final long HIGHEST_MICROS = 3_600_000_000L;

    private final SimConfig config;
    private final EventQueue clock = new EventQueue();
    private final SplittableRandom arrivals;
    private final SplittableRandom searchRandom;
    /** Split after the leaves' generators: a run without query costs draws what it drew before they existed. */
    private final SplittableRandom costRandom;
    private final double costSigma;
    private final SimLeaf[] leaves;
    /** The machine's cores, shared by the leaves, the root and the client; null when not modelled. */
    private final SharedCpu cpu;
    /** Which partitions hold a search's hits ({@code hits}); split after the cost's generator. */
    private final SplittableRandom hitsRandom;
    /** Each search's shape under a structured {@code mix}; split last, and drawn from only then. */
    private final SplittableRandom shapeRandom;
    /** Under a structured mix: each shape's measured latencies, by {@link SimMix.Shape} ordinal; else empty. */
    private final Histogram[] shapeLatencies;
    private final DetachedRoot root;
    private final ClusterState cluster;
    private final SimPlacement placement;
    private final SearchRequest request;
    private final SimCounters counters = new SimCounters();
    private final Histogram latencies = new Histogram(HIGHEST_MICROS, 3);
    /** Table 1's first row: one sub-request's round trip, sent to answered at the root (OK answers). */
    private final Histogram subRequestLatencies = new Histogram(HIGHEST_MICROS, 3);
    /** Table 1's second row: from a search's start until 95% of its partitions' answers came. */
    private final Histogram finish95Latencies = new Histogram(HIGHEST_MICROS, 3);
    private final int answersFor95;
    private final int warmupSearches;
    private final Consumer<String> progress;
    private int started;
    /** The search {@link DetachedRoot#start} is starting: its index, arrival and cost, for {@link #state}. */
    private int startingIndex;
    private long startingNanos;
    private double startingCost = 1;
    private SimMix.Shape startingShape;
    private int ended;
    private long measured;
    private long measuredSlow;
    private long measuredTainted;
    private long measuredFailed;
    private long measuredSent;
    private long refused;
    private long lastSearchEndNanos;

    /**
     * What the simulator keeps with each search. A timer replaced or outliving its search stays in
     * the event queue until its time (up to the timeout, 10 s of simulated time), holding this
     * object only: the search itself (its run, a slot per partition) is let go when it ends, or a
     * run at 1,000 leaves keeps thousands of finished searches and runs out of heap.
     */
    private static final class SimSearch {
        final int index;
        final long startNanos;
        /** The search while it runs; null once it ended. */
        DetachedRoot.Search search;
        /** What every sub-request of this search costs, times its drawn service time. */
        double cost = 1;
        /** Its shape under a structured mix; null without one. */
        SimMix.Shape shape;
        long timerAtNanos = -1;
        boolean done;
        int answers;
        /** The partitions whose answers carry a hit, the first the best ({@code hits}). */
        int[] hitPartitions = NO_HITS;

        SimSearch(int index, long startNanos) {
            this.index = index;
            this.startNanos = startNanos;
        }
    }

    private Simulation(SimConfig config, Consumer<String> progress) {
        this.config = config;
        this.progress = progress;
        SplittableRandom seed = new SplittableRandom(config.seed);
        this.arrivals = seed.split();
        this.searchRandom = seed.split();
        this.warmupSearches = (int) Math.round(config.queries * config.warmup);
        this.answersFor95 = (int) Math.ceil(0.95 * config.partitions);
        ClusterState cluster = new ClusterState(SimRootConfig.of(config), 1, clock, 1L, false);
        for (int leaf = 0; leaf < config.leaves; leaf++) {
            cluster.leaf(leaf).connectionReady(); // serving, for probation's last-replica rule
        }
        this.root = new DetachedRoot(cluster, DispatchPolicy.of(config.adaptation, 1), new RootMetrics(cluster, false), clock,
                IndexQueryParser.standard(), this);
        this.cpu = config.cores > 0 ? SharedCpu.of(config.cpuSched, config.cores, clock) : null;
        this.leaves = new SimLeaf[config.leaves];
        for (int leaf = 0; leaf < config.leaves; leaf++) {
            leaves[leaf] = new SimLeaf(leaf, this, config, clock, seed.split(), degraded(leaf, config));
        }
        this.costRandom = seed.split();
        this.hitsRandom = seed.split();
        this.shapeRandom = seed.split();
        this.shapeLatencies = new Histogram[config.mix.shapes() ? SimMix.Shape.values().length : 0];
        for (int shape = 0; shape < shapeLatencies.length; shape++) {
            shapeLatencies[shape] = new Histogram(HIGHEST_MICROS, 3);
        }
        this.cluster = cluster;
        this.placement = new SimPlacement(cluster, config.placement, clock, config.openNanos,
                () -> ended < config.queries);
        this.costSigma = Math.log(config.queryCostP99) / 2.3263; // the p99 of a standard normal
        this.request = SearchRequest.builder(QUERY).cache(false).timeoutMillis(Math.max(1, config.timeoutNanos / 1_000_000))
                .build();
    }


    /**
     * Runs {@code config} to the end: every search arrived and finished.
     *
     * @param progress told a line about every tenth of the searches
     */
    public static SimSummary run(SimConfig config, Consumer<String> progress) {
        return new Simulation(config, progress).run();
    }

    private SimSummary run() {
        long wallStart = System.nanoTime();
        double perSecond = config.searchesPerSecond();
        clock.at(0, () -> arrive(perSecond));
        if (config.crashLeaves > 0) {
            clock.at(config.crashAtNanos, this::crash);
        }
        if (config.placement.anyOn()) {
            placement.start();
        }
        int tenth = Math.max(1, config.queries / 10);
        int nextReport = tenth;
        while (clock.runNext()) {
            if (ended >= nextReport && progress != null) {
                double wallSeconds = (System.nanoTime() - wallStart) / 1e9;
                progress.accept(String.format("  %,d/%,d searches, %.1f s simulated, %.1f s, %,.0f events/s", ended,
                        config.queries, clock.nanoTime() / 1e9, wallSeconds, clock.executed() / wallSeconds));
                nextReport += tenth;
            }
        }
        long wallNanos = System.nanoTime() - wallStart;
        counters.cpuCoreNanos = cpu == null ? Double.NaN : cpu.busyCoreNanos();
        return SimSummary.of(config, perSecond, latencies, subRequestLatencies, finish95Latencies, measured, measuredSlow, measuredTainted, measuredFailed,
                measuredSent, refused, counters, clock.executed(), lastSearchEndNanos, wallNanos,
                placement.report(), shapeLatencies);
    }

    private void arrive(double perSecond) {
        if (started >= config.queries) {
            return;
        }
        started++;
        int index = started - 1;
        long arrivedNanos = clock.nanoTime();
        SimMix.Shape shape = config.mix.shapes() ? SimMix.pick(shapeRandom) : null;
        double cost = (costSigma == 0 ? 1 : Math.exp(costSigma * costRandom.nextGaussian())) * config.mix.leafCost(shape);
        if (cpu != null && config.clientCpuNanos > 0) {
            cpu.run(config.clientCpuNanos, () -> { }); // the generator's own work, beside the search's path
        }
        onRoot(shape, () -> {
            startingIndex = index;
            startingNanos = arrivedNanos;
            startingCost = cost; // taken by state() as the run starts
            startingShape = shape;
            DetachedRoot.Search search = root.start(request, config.timeoutNanos, searchRandom, clock.nanoTime());
            if (search == null) {
                ended++; // refused or served without a run: told through failed or finished with no search
            }
        });
        if (started < config.queries) {
            long gap = (long) (-Math.log(1 - arrivals.nextDouble()) / perSecond * 1e9);
            clock.after(gap, () -> arrive(perSecond));
        }
    }

    private SimSearch state(DetachedRoot.Search search) {
        if (search.attachment == null) {
            SimSearch state = new SimSearch(startingIndex, startingNanos); // made as it starts
            state.search = search;
            state.cost = startingCost;
            state.shape = startingShape;
            if (config.hits > 0) {
                state.hitPartitions = SimAnswers.drawHitPartitions(config.hits, config.partitions,
                        Math.min(config.partitions, request.k()), hitsRandom);
            }
            search.attachment = state;
        }
        return (SimSearch) search.attachment;
    }

    private boolean isMeasured(SimSearch search) {
        return search.index >= warmupSearches;
    }

    @Override
    public void send(DetachedRoot.Copy copy) {
        if (isMeasured(state(copy.search()))) {
            if (copy.fetch() == null) {
                measuredSent++;
            } else {
                counters.fetchesSent++;
            }
        }
        SimLeaf leaf = leaves[copy.leaf()];
        onRoot(state(copy.search()).shape, () -> {
            SimTask task = new SimTask(copy, clock.nanoTime() + config.networkNanos);
            clock.at(task.arrivedNanos, () -> leaf.arrive(task));
        });
    }

    @Override
    public void cancel(DetachedRoot.Search search, int leaf, long requestId) {
        // Through the root's CPU as a send is, so that it cannot overtake the copy it cancels.
        onRoot(state(search).shape, () -> clock.after(config.networkNanos, () -> leaves[leaf].cancel(requestId)));
    }

    /**
     * Runs {@code then} after the root's CPU for one message of a search of {@code shape} ({@code
     * root-cpu}, times the shape's {@code mix-root-cost}; null: a plain search), at once without it.
     */
    private void onRoot(SimMix.Shape shape, Runnable then) {
        if (cpu == null || config.rootCpuNanos == 0) {
            then.run();
        } else {
            cpu.run((long) (config.rootCpuNanos * config.mix.rootCost(shape)), then);
        }
    }

    /** Whether searches are still to come or in progress: periodic events stop after. */
    boolean running() {
        return ended < config.queries;
    }

    SharedCpu cpu() {
        return cpu;
    }

    @Override
    public void armTimer(DetachedRoot.Search search, long atNanos) {
        SimSearch state = state(search);
        state.timerAtNanos = atNanos;
        clock.at(atNanos, () -> fire(state, atNanos));
    }

    private void fire(SimSearch state, long atNanos) {
        if (!state.done && state.timerAtNanos == atNanos) {
            state.timerAtNanos = -1;
            state.search.timer(clock.nanoTime());
        }
    }

    @Override
    public void finished(DetachedRoot.Search search, SearchResult result) {
        if (search == null) {
            refused++;
            return;
        }
        SimSearch state = finish(search);
        onRoot(state.shape, () -> { // the answer written: only then has the search ended
            end(state);
            if (isMeasured(state) && result.tainted()) {
                measuredTainted++;
            }
        });
    }

    @Override
    public void failed(DetachedRoot.Search search, SearchException failure) {
        if (search == null) {
            refused++;
            return;
        }
        SimSearch state = finish(search);
        onRoot(state.shape, () -> {
            end(state);
            if (isMeasured(state)) {
                measuredFailed++;
            }
        });
    }

    /** The request path is done with {@code search}: late answers and timers are ignored from now. */
    private SimSearch finish(DetachedRoot.Search search) {
        SimSearch state = state(search);
        state.done = true;
        state.search = null;
        return state;
    }

    /** The search's answer is written: it is over, and measured if it is past the warm-up. */
    private void end(SimSearch state) {
        ended++;
        long now = clock.nanoTime();
        lastSearchEndNanos = now;
        if (isMeasured(state)) {
            long tookNanos = now - state.startNanos;
            latencies.recordValue(micros(tookNanos));
            if (state.shape != null) {
                shapeLatencies[state.shape.ordinal()].recordValue(micros(tookNanos));
            }
            measured++;
            if (tookNanos > config.slowThresholdNanos) {
                measuredSlow++;
            }
        }
    }

    /** A leaf's answer to {@code task}, on its way back to the root ({@code stallNanos} late). */
    void answer(SimTask task, Status status, long queueNanos, long serviceNanos, long stallNanos) {
        DetachedRoot.Copy copy = task.copy;
        SimSearch state = state(copy.search());
        if (copy.fetch() != null) {
            FetchResponse response = SimAnswers.fetch(copy.fetch(), status, queueNanos, serviceNanos);
            clock.after(config.networkNanos + stallNanos,
                    () -> onRoot(state.shape, () -> copy.search().fetched(copy, response, clock.nanoTime())));
            return;
        }
        SearchResponse answer = SimAnswers.search(copy, status, queueNanos, serviceNanos, state.hitPartitions);
        // A faceted answer carries its buckets too: merging it costs the root its shape's multiple.
        clock.after(config.networkNanos + stallNanos, () -> onRoot(state.shape, () -> deliver(copy, answer)));
    }

    /**
     * A leaf's answer to {@code task}, stopped by the root's cancel while it ran: OK, cut short, with
     * no hits (the root no longer waits for it), after {@code serviceNanos} of work.
     */
    void answerCutShort(SimTask task, long queueNanos, long serviceNanos) {
        DetachedRoot.Copy copy = task.copy;
        if (copy.fetch() != null) {
            answer(task, Status.CANCELLED, 0, 0, 0); // a fetch is not cut short: dropped, as before
            return;
        }
        SimSearch state = state(copy.search());
        SearchResponse answer = SimAnswers.cutShort(copy, queueNanos, serviceNanos);
        clock.after(config.networkNanos, () -> onRoot(state.shape, () -> deliver(copy, answer)));
    }

    private void deliver(DetachedRoot.Copy copy, SearchResponse response) {
        long now = clock.nanoTime();
        SimSearch state = state(copy.search());
        // A copy stopped by a cancel (cut short) answers what the root no longer waits for: not a sub-request's latency.
        if (!state.done && response.getStatus() == Status.OK && !response.getCutShort() && isMeasured(state)
                && copy.kind() != SubRequestTrace.Kind.SHADOW) {
            subRequestLatencies.recordValue(micros(now - copy.sentNanos()));
            // Every OK answer counts: with one copy per partition (no policy) that is Table 1's row.
            if (++state.answers == answersFor95) {
                finish95Latencies.recordValue(micros(now - state.startNanos));
            }
        }
        copy.search().answered(copy, response, now);
    }

    private static long micros(long nanos) {
        return Math.min(HIGHEST_MICROS, Math.max(1, nanos / 1000));
    }

    /** A leaf that started a tied copy tells its twin's leaf. */
    void cancelTwin(int twinLeaf, long twinRequestId) {
        clock.after(config.peerNanos, () -> leaves[twinLeaf].twinCancel(twinRequestId));
    }

    /** A copy reached a crashed leaf: the root learns it from the connection, a network delay later. */
    void lostOnArrival(SimTask task) {
        clock.after(config.networkNanos, () -> task.copy.search().lost(task.copy, "leaf crashed", clock.nanoTime()));
    }

    void lostInCrash(SimTask task) {
        lostOnArrival(task);
    }

    private void crash() {
        for (int leaf = config.leaves - config.crashLeaves; leaf < config.leaves; leaf++) {
            int crashed = leaf;
            clock.after(config.networkNanos, () -> {
                root.ready(crashed, false); // before the losses it causes
                cluster.leaf(crashed).connectionLost("leaf crashed");
            });
            leaves[leaf].crash();
        }
    }

    /** The shape of the search {@code copy} belongs to under a structured mix; null without one. */
    SimMix.Shape shapeOf(DetachedRoot.Copy copy) {
        return config.mix.shapes() ? state(copy.search()).shape : null;
    }

    /** The cost multiplier of the search {@code copy} belongs to ({@code --query-cost}, its shape's {@code mix-cost}). */
    double costOf(DetachedRoot.Copy copy) {
        return costSigma == 0 && !config.mix.shapes() ? 1 : state(copy.search()).cost;
    }

    SimCounters counters() {
        return counters;
    }

    /**
     * Whether {@code leaf} is one of the degraded leaves, spread evenly over the leaves (0, stride,
     * 2 x stride...): adjacent leaves share partitions, and a run of slow neighbours would leave some
     * partition no fast replica, which is another experiment.
     */
    static boolean degraded(int leaf, SimConfig config) {
        if (config.degradedLeaves == 0) {
            return false;
        }
        int stride = config.leaves / config.degradedLeaves;
        return leaf % stride == 0 && leaf / stride < config.degradedLeaves;
    }
}
