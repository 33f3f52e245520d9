package io.hedgerow.root.metrics;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.metrics.ProcessMeters;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.cost.CostControl;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.TailGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The root's Micrometer meters, exposed in Prometheus text format on {@code /metrics}. Meters are
 * created once here so the request path only records (no registry lookups per request).
 */
public final class RootMetrics implements AutoCloseable {

    /** Why a whole request failed, as counted in {@code hedgerow_request_errors_total}. */
    public enum RequestError {
        BAD_REQUEST, BAD_QUERY, UNAVAILABLE, TIMED_OUT, NOT_FOUND, INTERNAL, DANGEROUS, BLOCKLISTED,
        /** Refused by admission control: over the limit, and its queue refused it (full, deadline, growing delay). */
        OVERLOADED,
        /** Refused because the root is stopping. */
        SHUTTING_DOWN,
        /** An admin request without the admin token. */
        UNAUTHORIZED
    }

    /**
     * What became of a cancelled sub-request, as its leaf's answer tells, counted in
     * {@code hedgerow_cancels_total}: dropped while queued (or never queued), stopped while running
     * (answered cut short), or too late (it had finished).
     */
    public enum CancelOutcome { DROPPED_QUEUED, STOPPED_RUNNING, TOO_LATE }

    /**
     * Why one sub-request failed, as counted in {@code hedgerow_subrequest_errors_total}. DRAINING:
     * refused busy by a leaf that is shutting down, which says nothing of the cluster's load (unlike
     * BUSY, it does not feed admission control).
     */
    public enum SubRequestError { BUSY, DRAINING, CONNECTION, TIMED_OUT, FAILED, NOT_ASSIGNED, EXPIRED, NO_REPLICA }

    private static final Duration[] SUB_REQUEST_BUCKETS = {
            Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2),
            Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofSeconds(5)};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final WatchedMeters watched = new WatchedMeters(registry);
    private final Timer searchLatency;
    /** By leaf slot: its leaf's round-trip timer (null while vacant); null when no timers are kept. */
    private final AtomicReferenceArray<Timer> leafLatency;
    private final ClusterState cluster;
    /**
     * By leaf slot: the meters labelled by its leaf's address ({@code leaf=host:port}); none while vacant,
     * removed when another leaf takes the slot over, so the labels are never more than the slots and a
     * label never means two leaves. Guarded by this.
     */
    private final Map<Integer, List<Meter>> leafMeters = new HashMap<>();
    /** The cost control whose per-leaf batch meters go with each leaf's. Guarded by this. */
    private CostControl costs;
    private final Map<RequestError, Counter> requestErrors = new EnumMap<>(RequestError.class);
    private final Map<SubRequestError, Counter> subRequestErrors = new EnumMap<>(SubRequestError.class);
    private final Map<SubRequestTrace.Kind, Counter> subRequestsSent = new EnumMap<>(SubRequestTrace.Kind.class);
    private final Counter partialResults;
    private final Map<CancelOutcome, Counter> cancels = new EnumMap<>(CancelOutcome.class);
    private final Counter cancelsSent;
    private final Counter searchPartsMessages;
    private final Counter searchPartsSent;
    private final Counter backupsWon;
    private final Counter budgetRefusals;
    private final Counter tiedPairs;
    private final Counter tiedBothRan;
    private final Timer hedgeDelay;
    private final Counter cutOff;
    private final Counter canariesResent;
    private final Map<Blocklist.Reason, Counter> dangerous = new EnumMap<>(Blocklist.Reason.class);
    private final AtomicInteger inflight = new AtomicInteger();
    private final Counter searchRequests;
    private final Map<Phase, Counter> subRequestsNeeded = new EnumMap<>(Phase.class);
    private final RequestLatency requestLatency = new RequestLatency();
    /** Each leaf's service, queue and round-trip histograms for {@code /metrics/leaves}; none in a simulation. */
    private final LeafLatency leafHistograms;
    /** The JVM's meters, once {@link #bindProcess()} bound them; guarded by this. */
    private ProcessMeters process;
    /** Told of every busy answer from a leaf (admission control backs off on them). */
    private volatile Runnable onLeafBusy = () -> {
    };

    /** A phase of a search, for the sub-requests it needs at the least. */
    public enum Phase { QUERY, FETCH }

    public RootMetrics(ClusterState cluster) {
        this(cluster, true);
    }

    /**
     * @param leafLatencyTimers whether to keep {@code hedgerow.subrequest.latency} per leaf; a
     *                          simulation of 1,000 leaves keeps none (recording them was a fifth of
     *                          its time, and their windows run on the wall clock, not the simulated one),
     *                          nor the histograms of {@link #leafLatency()}
     */
    public RootMetrics(ClusterState cluster, boolean leafLatencyTimers) {
        // process_cpu_time_ns_total: what a phase of load cost the root in CPU (the load generator reads it).
        new ProcessorMetrics().bindTo(registry);
        searchLatency = Timer.builder("hedgerow.search.latency")
                .description("Time from receiving a search to its result being ready")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(10))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        // Recorded for every sub-request, so a dozen fixed buckets rather than the ~270 of a
        // percentile histogram: recording binary-searches the buckets of each time window, and with
        // the full set that was a tenth of the root's CPU. Percentiles per leaf are on /cluster.
        this.cluster = cluster;
        leafLatency = leafLatencyTimers ? new AtomicReferenceArray<>(cluster.leaves().size()) : null;
        leafHistograms = new LeafLatency(leafLatencyTimers ? cluster.leaves().size() : 0);
        for (RequestError kind : RequestError.values()) {
            requestErrors.put(kind, Counter.builder("hedgerow.request.errors")
                    .description("Requests that failed as a whole, by kind")
                    .tag("kind", kind.name().toLowerCase())
                    .register(registry));
        }
        for (SubRequestError kind : SubRequestError.values()) {
            subRequestErrors.put(kind, Counter.builder("hedgerow.subrequest.errors")
                    .description("Sub-requests that got no usable answer, by kind")
                    .tag("kind", kind.name().toLowerCase())
                    .register(registry));
        }
        for (SubRequestTrace.Kind kind : SubRequestTrace.Kind.values()) {
            subRequestsSent.put(kind, Counter.builder("hedgerow.subrequests")
                    .description("Sub-requests sent to leaves, by why they were sent")
                    .tag("kind", kind.name().toLowerCase())
                    .register(registry));
        }
        searchRequests = counter("hedgerow.search.requests",
                "Search requests received over HTTP, whatever became of them (a load generator compares it with what it sent)");
        for (Phase phase : Phase.values()) {
            subRequestsNeeded.put(phase, Counter.builder("hedgerow.subrequests.needed")
                    .description("Sub-requests a search needed at the least: one per partition in the query phase, one per"
                            + " leaf holding hits in the fetch phase; what was sent beyond them is extra")
                    .tag("phase", phase.name().toLowerCase())
                    .register(registry));
        }
        partialResults = Counter.builder("hedgerow.search.tainted")
                .description("Results returned with less than full coverage")
                .register(registry);
        for (CancelOutcome outcome : CancelOutcome.values()) {
            cancels.put(outcome, Counter.builder("hedgerow.cancels")
                    .description("Cancelled sub-requests, by what the leaf's answer says became of them")
                    .tag("outcome", outcome.name().toLowerCase())
                    .register(registry));
        }
        cancelsSent = counter("hedgerow.cancels.sent", "Cancels the root sent to leaves");
        searchPartsMessages = counter("hedgerow.leaf.batching.messages", "Messages that carried several partitions'"
                + " sub-requests of one search to one leaf (--leaf-batching)");
        searchPartsSent = counter("hedgerow.leaf.batching.parts", "Sub-requests sent as parts of such messages; each"
                + " is also counted in hedgerow.subrequests");
        backupsWon = counter("hedgerow.hedge.backups.won", "Backup sub-requests whose answer came first and was used");
        budgetRefusals = counter("hedgerow.hedge.budget.refusals", "Backups not sent because the hedge budget was spent");
        tiedPairs = counter("hedgerow.tied.pairs", "Partitions of tied requests whose second copy was sent");
        tiedBothRan = counter("hedgerow.tied.both.ran", "Tied pairs where both copies started executing (wasted work)");
        cutOff = counter("hedgerow.goodenough.cutoffs",
                "Results returned at the good-enough cutoff, without the partitions still searching");
        canariesResent = counter("hedgerow.canary.resent",
                "Second canaries sent to another leaf: a backup at the hedge delay, or a second opinion after the first"
                        + " canary's connection dropped or its leaf went silent or was overtaken");
        for (Blocklist.Reason reason : Blocklist.Reason.values()) {
            dangerous.put(reason, Counter.builder("hedgerow.canary.dangerous")
                    .description("Queries whose canary was lost with its leaf, or hung, on two leaves: blocklisted")
                    .tag("reason", reason.label())
                    .register(registry));
        }
        hedgeDelay = Timer.builder("hedgerow.hedge.delay")
                .description("The hedge delay in use, per hedged query")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1).dividedBy(10))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry);
        Gauge.builder("hedgerow.search.inflight", inflight, AtomicInteger::get)
                .description("Searches being served right now")
                .register(registry);
        for (LeafStatus leaf : cluster.leaves()) {
            registerLeaf(leaf.index());
        }
        // A slot filled at run time gets its leaf's meters; one another leaf takes over, or left vacant again,
        // loses the old leaf's first.
        cluster.onSlotReused((slot, before, now) -> forgetLeaf(slot));
        cluster.onSlotVacated(this::forgetLeaf);
        cluster.onSlotFilled(this::registerLeaf);
        Gauge.builder("hedgerow.leaves.probation", cluster.probation(), p -> p.count())
                .description("Leaves on latency-induced probation: out of primary rotation, measured by shadow requests"
                        + " (counted in hedgerow_subrequests_total{kind=\"shadow\"})")
                .register(registry);
        Gauge.builder("hedgerow.probation.entered", cluster.probation(), p -> p.entered())
                .description("Times a leaf has gone on probation since the root started")
                .register(registry);
    }

    /**
     * Meters of the root's tail policies, read from them at each scrape: the result cache's
     * counters and sizes, the blocklist's size, the canary timeout and the cutoff in use.
     */
    public void watch(TailGuard tail) {
        watched.tail(tail);
    }

    /**
     * Meters of the root's cost control, read at each scrape ({@link WatchedMeters#costs}), and each
     * filled slot's batch meters, labelled by its leaf's address.
     */
    public synchronized void watch(CostControl costs, List<LeafStatus> leaves) {
        watched.costs(costs);
        this.costs = costs;
        for (LeafStatus leaf : leaves) {
            List<Meter> meters = leafMeters.get(leaf.index());
            if (meters != null) {
                meters.addAll(watched.batchOfLeaf(costs, leaf.index(), leaf.name()));
            }
        }
    }

    /**
     * Registers the meters of the leaf in {@code slot}, labelled by its address: its round-trip timer,
     * whether it is up, whether on probation, and its batch sub-requests. Nothing for a vacant slot.
     */
    private synchronized void registerLeaf(int slot) {
        LeafStatus leaf = cluster.leaf(slot);
        if (leaf.vacant() || leafMeters.containsKey(slot)) {
            return;
        }
        String name = leaf.name();
        List<Meter> meters = new ArrayList<>();
        if (leafLatency != null) {
            Timer timer = Timer.builder("hedgerow.subrequest.latency")
                    .description("Round trip of sub-requests to one leaf, as the root sees it")
                    .tag("leaf", name)
                    .serviceLevelObjectives(SUB_REQUEST_BUCKETS)
                    .register(registry);
            meters.add(timer);
            leafLatency.set(slot, timer);
        }
        meters.add(Gauge.builder("hedgerow.leaf.up", leaf, l -> l.state() == LeafStatus.State.DOWN ? 0 : 1)
                .description("1 when the root has a ready connection to the leaf")
                .tag("leaf", name)
                .register(registry));
        meters.add(Gauge.builder("hedgerow.leaf.probation", cluster.probation(), p -> p.onProbation(slot) ? 1 : 0)
                .description("1 while the leaf is on latency-induced probation (out of primary rotation)")
                .tag("leaf", name)
                .register(registry));
        if (costs != null) {
            meters.addAll(watched.batchOfLeaf(costs, slot, name));
        }
        leafMeters.put(slot, meters);
    }

    /** Another leaf takes over {@code slot}: the old leaf's meters and histograms go. */
    private synchronized void forgetLeaf(int slot) {
        if (leafLatency != null) {
            leafLatency.set(slot, null);
        }
        List<Meter> meters = leafMeters.remove(slot);
        if (meters != null) {
            meters.forEach(registry::remove);
        }
        leafHistograms.forget(slot);
    }

    /** Meters of admission control, read at each scrape: its limit, what is in flight, its queue, what it refused. */
    public void watch(AdmissionControl admission) {
        watched.admission(admission);
    }

    /** The HTTP intake's connections: open now, and closed at once because the cap was reached. */
    public void watchConnections(IntSupplier open, LongSupplier refused) {
        watched.connections(open, refused);
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    /** A search request arrived over HTTP. */
    public void searchRequested() {
        searchRequests.increment();
    }

    /** A phase of a search needs at least {@code count} sub-requests (see {@code hedgerow_subrequests_needed_total}). */
    public void subRequestsNeeded(Phase phase, int count) {
        subRequestsNeeded.get(phase).increment(count);
    }

    /** Each search's time from its first byte in to its last byte out, by outcome. */
    public RequestLatency requestLatency() {
        return requestLatency;
    }

    public void searchStarted() {
        inflight.incrementAndGet();
    }

    public void searchFinished(long latencyNanos, boolean tainted) {
        inflight.decrementAndGet();
        searchLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
        if (tainted) {
            partialResults.increment();
        }
    }

    /** A complete result served from the cache, nothing run. */
    public void servedFromCache(long latencyNanos) {
        searchLatency.record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    /** A blocklisted query refused. */
    public void blocklistRefused() {
        requestErrors.get(RequestError.BLOCKLISTED).increment();
    }

    /** A canary crashed or timed out: its query failed as dangerous (counted there) and was blocklisted. */
    public void dangerous(Blocklist.Reason reason) {
        dangerous.get(reason).increment();
    }

    /** A second canary went to another leaf (a backup, or a second opinion). */
    public void canaryResent() {
        canariesResent.increment();
    }

    /** A result returned at the good-enough cutoff. */
    public void cutOff() {
        cutOff.increment();
    }

    public void searchFailed(RequestError kind) {
        inflight.decrementAndGet();
        requestErrors.get(kind).increment();
    }

    /** Requests failed or refused for {@code kind} so far. */
    public long requestErrors(RequestError kind) {
        return (long) requestErrors.get(kind).count();
    }

    /** A request refused before it became a search (bad parameters, unknown path...). */
    public void requestRejected(RequestError kind) {
        requestErrors.get(kind).increment();
    }

    public void subRequestAnswered(int leaf, long roundTripNanos) {
        Timer timer = leafLatency == null ? null : leafLatency.get(leaf);
        if (timer != null) {
            timer.record(roundTripNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A search's OK answer from {@code leaf}: its round trip at the root, and the queue, service and
     * CPU time the leaf reported in it (for {@link #leafLatency()} as well as the per-leaf timer).
     */
    public void subRequestAnswered(int leaf, long roundTripNanos, long queueNanos, long serviceNanos, long cpuNanos) {
        subRequestAnswered(leaf, roundTripNanos);
        leafHistograms.record(leaf, Phase.QUERY, roundTripNanos, queueNanos, serviceNanos, cpuNanos);
    }

    /** A fetch's OK answer from {@code leaf}, as {@link #subRequestAnswered(int, long, long, long, long)}. */
    public void fetchAnswered(int leaf, long roundTripNanos, long queueNanos, long serviceNanos, long cpuNanos) {
        leafHistograms.record(leaf, Phase.FETCH, roundTripNanos, queueNanos, serviceNanos, cpuNanos);
    }

    /** Each leaf's latency histograms ({@code /metrics/leaves}). */
    public LeafLatency leafLatency() {
        return leafHistograms;
    }

    /** Counted in {@code hedgerow_subrequests_total} by why it was sent ({@link SubRequestTrace.Kind}). */
    public void subRequestSent(SubRequestTrace.Kind kind) {
        subRequestsSent.get(kind).increment();
    }

    /** {@code count} sub-requests of one kind, sent by one event of a search: one counter update for them all. */
    public void subRequestsSent(SubRequestTrace.Kind kind, int count) {
        subRequestsSent.get(kind).increment(count);
    }

    public void subRequestFailed(SubRequestError kind) {
        subRequestErrors.get(kind).increment();
        if (kind == SubRequestError.BUSY) {
            onLeafBusy.run();
        }
    }

    /** Runs {@code listener} at every busy answer from a leaf, on the thread that counts it. */
    public void onLeafBusy(Runnable listener) {
        this.onLeafBusy = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** One message carried {@code parts} partitions' sub-requests of one search to its leaf. */
    public void searchPartsSent(int parts) {
        searchPartsMessages.increment();
        searchPartsSent.increment(parts);
    }

    public void cancelSent() {
        cancelsSent.increment();
    }

    public void cancelled(CancelOutcome outcome) {
        cancels.get(outcome).increment();
    }

    public void backupWon() {
        backupsWon.increment();
    }

    public void budgetRefused() {
        budgetRefusals.increment();
    }

    public void tiedPairSent() {
        tiedPairs.increment();
    }

    public void tiedBothRan() {
        tiedBothRan.increment();
    }

    public void hedgeDelayUsed(long delayNanos) {
        hedgeDelay.record(delayNanos, TimeUnit.NANOSECONDS);
    }

    public int inflight() {
        return inflight.get();
    }

    /** Everything, in Prometheus text exposition format. */
    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Exports the process's JVM, GC, memory, thread, class-loading, CPU and uptime meters and
     * {@code hedgerow_build_info} ({@link ProcessMeters}) from now on: a root serving traffic does, a
     * simulation does not (its process is not a root's). Idempotent; undone by {@link #close()}.
     */
    public synchronized void bindProcess() {
        if (process == null) {
            process = ProcessMeters.bindTo(registry, "root");
        }
    }

    /** Unhooks what {@link #bindProcess()} hooked into the JVM (the GC listener). */
    @Override
    public synchronized void close() {
        if (process != null) {
            process.close();
        }
    }
}
