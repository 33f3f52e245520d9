package io.hedgerow.leaf.server;

import io.hedgerow.common.metrics.ProcessMeters;
import io.hedgerow.common.net.Transport;
import io.hedgerow.leaf.http.LeafHttpConfig;
import io.hedgerow.leaf.http.LeafHttpServer;
import io.hedgerow.leaf.http.ProbeState;
import io.hedgerow.leaf.search.LeafQueryCache;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * What a leaf tells operators on its HTTP port ({@link LeafHttpServer}): its meters, bound here to
 * a Prometheus registry (the internals they read are this package's), its readiness and its
 * liveness. Made by {@link LeafServer#start} before the leaf's protobuf port is bound, so the
 * HelloAck can name the HTTP address to roots.
 *
 * <p><b>Assumptions and guarantees.</b> The meters read the leaf's counters and queues at each
 * scrape (function counters and gauges: nothing is recorded for them on the answer path, but the
 * answers' times of {@link LeafTimings}, on the event loop that writes them). {@link #close()} is idempotent.
 */
final class LeafObservability implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final ProcessMeters process;
    private final EventLoopGroup httpGroup;
    private final LeafHttpServer http;

    private LeafObservability(PrometheusMeterRegistry registry, ProcessMeters process, EventLoopGroup httpGroup,
            LeafHttpServer http) {
        this.registry = registry;
        this.process = process;
        this.httpGroup = httpGroup;
        this.http = http;
    }

    /**
     * Binds the meters and, unless disabled, the HTTP port on {@code host}.
     *
     * @param io the leaf's I/O loops, which {@code /health} proves run
     * @throws IOException when the HTTP port cannot be bound
     */
    static LeafObservability start(LeafHttpConfig config, String host, Transport transport, EventLoopGroup io,
            LeafContext leaf, LongAdder refreshes, LeafWalMeters wal, LeafQueryCache queryCache) throws IOException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ProcessMeters process = ProcessMeters.bindTo(registry, "leaf");
        bind(registry, leaf, refreshes);
        bindQueryCache(registry, queryCache);
        wal.bindTo(registry);
        if (!config.enabled()) {
            return new LeafObservability(registry, process, null, null);
        }
        EventLoopGroup httpGroup = transport.newGroup(1, "leaf-http");
        try {
            LeafHttpServer http = LeafHttpServer.start(httpGroup, transport.serverChannelClass(), host, config.port(),
                    () -> liveness(io), () -> readiness(leaf), registry::scrape);
            return new LeafObservability(registry, process, httpGroup, http);
        } catch (IOException | RuntimeException e) {
            httpGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            process.close();
            throw e;
        }
    }

    /** {@code host:port} of the HTTP port, or "" when it is disabled (as the HelloAck says it). */
    String httpAddress() {
        return http == null ? "" : http.address().getHostString() + ":" + http.address().getPort();
    }

    /** The leaf's registry, as {@code /metrics} shows it (for tests and embedders). */
    MeterRegistry registry() {
        return registry;
    }

    /** Completes once each of the leaf's I/O loops has run a task: a wedged loop never completes it. */
    static CompletionStage<?> liveness(EventLoopGroup io) {
        List<CompletableFuture<Void>> ran = new ArrayList<>();
        for (EventExecutor loop : io) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            if (loop.isShuttingDown()) {
                done.completeExceptionally(new IllegalStateException("the leaf's event loops are shutting down"));
            } else {
                loop.execute(() -> done.complete(null));
            }
            ran.add(done);
        }
        return CompletableFuture.allOf(ran.toArray(CompletableFuture[]::new));
    }

    /** Ready when an assignment has opened and warmed partitions and the leaf is not draining. */
    static ProbeState readiness(LeafContext leaf) {
        if (leaf.drain().isDraining()) {
            return new ProbeState(false, "draining", "the leaf is shutting down: it answers what it holds and"
                    + " refuses new work");
        }
        if (leaf.partitions().assigning()) {
            return new ProbeState(false, "warming", "an assignment is opening and warming partitions");
        }
        if (leaf.partitions().openPartitions().isEmpty()) {
            return new ProbeState(false, "unassigned", "no root has assigned this leaf any partition yet");
        }
        return new ProbeState(true, "ready", "serving partitions " + leaf.partitions().openPartitions()
                + ", warmed");
    }

    private static void bind(MeterRegistry registry, LeafContext leaf, LongAdder refreshes) {
        SearchScheduler scheduler = leaf.scheduler();
        for (int cls = 0; cls < SchedulingConfig.CLASSES; cls++) {
            int priority = cls;
            Gauge.builder("hedgerow.leaf.queue.depth", scheduler, s -> s.queued(priority))
                    .description("Searches (a multi-partition task counts for each part) and fetches waiting for a"
                            + " worker, by scheduling class")
                    .tag("class", SchedulingConfig.className(cls))
                    .register(registry);
        }
        Gauge.builder("hedgerow.leaf.inflight", leaf.inflight(), InflightTasks::size)
                .description("Searches and fetches queued, parked between slices or running")
                .register(registry);
        Gauge.builder("hedgerow.leaf.workers", scheduler, SearchScheduler::workers)
                .description("Search worker threads").register(registry);
        Gauge.builder("hedgerow.leaf.lane.workers", scheduler, SearchScheduler::laneWorkers)
                .description("Worker threads of the expensive lane (0: lanes off)").register(registry);
        OpenPartitions partitions = leaf.partitions();
        Gauge.builder("hedgerow.leaf.partitions.open", partitions, p -> p.openPartitions().size())
                .description("Partitions this leaf serves").register(registry);
        Gauge.builder("hedgerow.leaf.ready", leaf, l -> readiness(l).ready() ? 1 : 0)
                .description("1 when /ready answers 200 (assigned, warmed, not draining)").register(registry);
        Gauge.builder("hedgerow.leaf.draining", leaf, l -> l.drain().isDraining() ? 1 : 0)
                .description("1 while the leaf shuts down and refuses new work").register(registry);
        counter(registry, "hedgerow.leaf.assignments", "Assignments of partitions a root sent and this leaf answered",
                partitions, p -> p.assignments.sum());
        counter(registry, "hedgerow.leaf.warmups", "Warm-ups run on newly opened partitions", partitions,
                p -> p.warmups.sum());
        counter(registry, "hedgerow.leaf.warmup.searches", "Searches run to warm newly opened partitions", partitions,
                p -> p.warmupSearches.sum());
        FunctionCounter.builder("hedgerow.leaf.warmup.time", partitions, p -> p.warmupNanos.sum() / 1e9)
                .description("Time spent warming newly opened partitions").baseUnit("seconds").register(registry);
        counter(registry, "hedgerow.leaf.warmup.failures", "Warm-ups that failed (the partitions served cold)",
                partitions, p -> p.warmupFailures.sum());
        counter(registry, "hedgerow.leaf.refreshes", "Searchers live writes published (refreshes after writes, and"
                + " live copies opened)", refreshes, LongAdder::sum);

        LeafCounters counters = leaf.counters();
        counters.timings.bindTo(registry);
        counter(registry, "hedgerow.leaf.slices.yielded", "Times a sliced search yielded its worker and queued the rest",
                counters, c -> c.slicesYielded.sum());
        counter(registry, "hedgerow.leaf.expensive.searches", "Searches whose estimated cost put them in the expensive"
                + " lane", counters, c -> c.expensiveSearches.sum());
        counter(registry, "hedgerow.leaf.moved.to.lane", "Searches estimated cheap that moved to the expensive lane after"
                + " a slice", counters, c -> c.movedToLane.sum());
        counter(registry, "hedgerow.leaf.search.parts.tasks", "Tasks that ran the cheap parts of one multi-partition"
                + " request one after another, queued once", counters, c -> c.searchPartsTasks.sum());
        counter(registry, "hedgerow.leaf.expired", "Requests whose deadline passed in the queue: answered EXPIRED,"
                + " never run", counters, c -> c.expiredAtDequeue.sum());
        counter(registry, "hedgerow.leaf.drain.refusals", "Searches and fetches refused while draining", counters,
                c -> c.drainRefusals.sum());
        cancels(registry, "root", "dropped_queued", counters, c -> c.rootCancelsDroppedQueued.sum());
        cancels(registry, "root", "stopped_running", counters, c -> c.rootCancelsStoppedRunning.sum());
        cancels(registry, "root", "too_late", counters, c -> c.rootCancelsTooLate.sum());
        cancels(registry, "twin", "dropped_queued", counters, c -> c.twinCancelsDroppedQueued.sum());
        cancels(registry, "twin", "both_ran", counters, c -> c.twinCancelsBothRan.sum());
        cancels(registry, "twin", "remembered", counters, c -> c.twinCancelsRemembered.sum());
        counter(registry, "hedgerow.leaf.twin.cancels.sent", "Cancels sent to a twin's leaf when a tied request"
                + " started", counters, c -> c.twinCancelsSent.sum());
        counter(registry, "hedgerow.leaf.twin.cancel.send.failures", "Cancels to a twin's leaf dropped (no connection,"
                + " or too many waiting)", counters, c -> c.twinCancelSendFailures.sum());
        counter(registry, "hedgerow.leaf.tombstoned.drops", "Requests answered CANCELLED on arrival: their twin's"
                + " cancel came first", counters, c -> c.tombstonedDrops.sum());
        counter(registry, "hedgerow.leaf.injected.delays", "Sub-requests held by an injected delay (fault injection)",
                counters, c -> c.delaysInjected.sum());
        counter(registry, "hedgerow.leaf.injected.stall.holds", "Times a worker was held by an injected stall",
                counters, c -> c.stallHolds.sum());
    }

    /**
     * Lucene's query cache ({@code --query-cache}): its lookups by outcome, what it holds and has
     * evicted, and its heap. Registered only when it is on: a leaf without one has no such meters.
     */
    static void bindQueryCache(MeterRegistry registry, LeafQueryCache cache) {
        if (!cache.enabled()) {
            return;
        }
        FunctionCounter.builder("hedgerow.leaf.query.cache.lookups", cache, LeafQueryCache::hits)
                .description("Lookups of a filter's cached matches on one segment, by outcome (Lucene's query cache)")
                .tag("outcome", "hit").register(registry);
        FunctionCounter.builder("hedgerow.leaf.query.cache.lookups", cache, LeafQueryCache::misses)
                .description("Lookups of a filter's cached matches on one segment, by outcome (Lucene's query cache)")
                .tag("outcome", "miss").register(registry);
        Gauge.builder("hedgerow.leaf.query.cache.entries", cache, LeafQueryCache::entries)
                .description("Cached matches held now: one filter on one segment each").register(registry);
        counter(registry, "hedgerow.leaf.query.cache.cached", "Matches of a filter on a segment ever cached",
                cache, LeafQueryCache::cached);
        counter(registry, "hedgerow.leaf.query.cache.evictions", "Cached matches evicted (the cache's bounds, or their"
                + " segment closed)", cache, LeafQueryCache::evictions);
        Gauge.builder("hedgerow.leaf.query.cache.memory", cache, LeafQueryCache::ramBytes)
                .description("Heap Lucene's query cache holds").baseUnit("bytes").register(registry);
    }

    private static <T> void counter(MeterRegistry registry, String name, String description, T source,
            ToDoubleFunction<T> read) {
        FunctionCounter.builder(name, source, read).description(description).register(registry);
    }

    /** {@code hedgerow_leaf_cancels_total{from,outcome}}: what a cancel from a root or a twin's leaf found. */
    private static void cancels(MeterRegistry registry, String from, String outcome, LeafCounters counters,
            ToDoubleFunction<LeafCounters> read) {
        FunctionCounter.builder("hedgerow.leaf.cancels", counters, read)
                .description("Cancels received, by sender and by what they found")
                .tag("from", from).tag("outcome", outcome)
                .register(registry);
    }

    @Override
    public void close() {
        if (http != null) {
            http.close();
            httpGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        process.close();
    }
}
