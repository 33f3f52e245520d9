package io.hedgerow.root.metrics;

import io.hedgerow.api.QueryPriority;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.admission.Refusal;
import io.hedgerow.root.cost.BatchAdmission;
import io.hedgerow.root.cost.CostControl;
import io.hedgerow.root.cost.QueryCostBook;
import io.hedgerow.root.hedge.RequestClass;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.ResultCache;
import io.hedgerow.root.tail.TailGuard;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The root's meters that are read from other components' state at each scrape (gauges and
 * function counters): the tail policies, cost control, admission control, the HTTP connections.
 * Nothing on the request path updates them; {@link RootMetrics} holds the counters it does update.
 */
final class WatchedMeters {
    private final MeterRegistry registry;

    WatchedMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Meters of the root's tail policies, read from them at each scrape: the result cache's
     * counters and sizes, the blocklist's size, the canary timeout and the cutoff in use.
     */
    void tail(TailGuard tail) {
        ResultCache cache = tail.cache();
        cacheCounter("hedgerow.cache.hits", "Requests served a complete result from the cache", cache, ResultCache.Stats::hits);
        cacheCounter("hedgerow.cache.misses", "Requests that found nothing in the cache", cache, ResultCache.Stats::misses);
        cacheCounter("hedgerow.cache.refreshed", "Requests that found a tainted entry and ran afresh", cache,
                ResultCache.Stats::taintedLookups);
        cacheCounter("hedgerow.cache.served.tainted", "Refreshed requests served the cached tainted result, the fresh one "
                + "covering less", cache, ResultCache.Stats::servedTainted);
        cacheCounter("hedgerow.cache.evictions", "Cache entries evicted for size", cache, ResultCache.Stats::evictions);
        cacheCounter("hedgerow.cache.stores.kept.better", "Results not cached because the entry held was better",
                cache, ResultCache.Stats::storesKeptBetter);
        cacheCounter("hedgerow.cache.stores.after.clear", "Results not cached because the cache was cleared while"
                + " their query ran", cache, ResultCache.Stats::storesAfterClear);
        Gauge.builder("hedgerow.cache.entries", cache, c -> c.stats().entries())
                .description("Results in the cache").register(registry);
        Gauge.builder("hedgerow.cache.tainted.entries", cache, c -> c.stats().taintedEntries())
                .description("Tainted results in the cache (never served as complete)").register(registry);
        Gauge.builder("hedgerow.cache.bytes", cache, c -> c.stats().bytes())
                .description("Estimated size of the cached results").baseUnit("bytes").register(registry);
        Gauge.builder("hedgerow.blocklist.entries", tail.blocklist(), Blocklist::size)
                .description("Queries of death on the blocklist").register(registry);
        for (RequestClass requestClass : RequestClass.values()) {
            Gauge.builder("hedgerow.canary.timeout", tail.canaryTimeout(), t -> t.timeoutNanos(requestClass) / 1e9)
                    .description("The canary timeout in use, by request class").tag("class", requestClass.name().toLowerCase(Locale.ROOT))
                    .baseUnit("seconds").register(registry);
        }
        Gauge.builder("hedgerow.goodenough.cutoff", tail.cutoff(), c -> c.cutoffNanos() / 1e9)
                .description("The good-enough cutoff in use").baseUnit("seconds").register(registry);
    }

    /**
     * Meters of the root's cost control, read at each scrape: the batch admission's limit per leaf,
     * the interactive p99 it watches and its baseline, and the queries whose cost the root has learnt
     * (each leaf's batch sub-requests: {@link #batchOfLeaf}).
     */
    void costs(CostControl costs) {
        BatchAdmission batch = costs.batch();
        Gauge.builder("hedgerow.batch.limit", batch, BatchAdmission::limit)
                .description("Batch sub-requests each leaf may hold at once, now").register(registry);
        Gauge.builder("hedgerow.batch.interactive.p99", batch, b -> b.controller().lastP99Nanos() / 1e9)
                .description("The interactive sub-request p99 of the batch limit's last window").baseUnit("seconds")
                .register(registry);
        Gauge.builder("hedgerow.batch.interactive.baseline", batch, b -> b.controller().baselineNanos() / 1e9)
                .description("The lowest recent window p99 the batch limit compares with").baseUnit("seconds")
                .register(registry);
        Gauge.builder("hedgerow.costs.queries", costs.book(), QueryCostBook::size)
                .description("Queries whose cost the root has learnt from the leaves").register(registry);
    }

    /**
     * The batch meters of the leaf in {@code slot}, labelled {@code leaf=address}: its batch
     * sub-requests in flight and waiting. The caller removes them when another leaf takes the slot.
     */
    List<Meter> batchOfLeaf(CostControl costs, int slot, String address) {
        BatchAdmission batch = costs.batch();
        return List.of(
                Gauge.builder("hedgerow.batch.inflight", batch, b -> b.inFlight(slot))
                        .description("Batch sub-requests the leaf holds").tag("leaf", address).register(registry),
                Gauge.builder("hedgerow.batch.waiting", batch, b -> b.waiting(slot))
                        .description("Batch sub-requests waiting at the root for a place at the leaf").tag("leaf", address)
                        .register(registry));
    }

    /** The HTTP intake's connections: open now, and closed at once because the cap was reached. */
    void connections(IntSupplier open, LongSupplier refused) {
        Gauge.builder("hedgerow.http.connections.open", open, o -> o.getAsInt())
                .description("HTTP connections open now").register(registry);
        FunctionCounter.builder("hedgerow.http.connections.refused", refused, r -> r.getAsLong())
                .description("HTTP connections closed as soon as they were accepted: the connection cap was reached")
                .register(registry);
    }

    /**
     * Meters of admission control: its limit, what is in flight, its queue (length, capacity, the
     * delay of the searches that waited), what it refused (by priority and by reason), its drops.
     */
    void admission(AdmissionControl admission) {
        Gauge.builder("hedgerow.admission.limit", admission, a -> a.enabled() ? a.limit() : Double.NaN)
                .description("Searches admission control allows in flight now (NaN when it is off)").register(registry);
        Gauge.builder("hedgerow.admission.inflight", admission, AdmissionControl::inflight)
                .description("Searches admitted and not yet answered").register(registry);
        for (QueryPriority priority : QueryPriority.values()) {
            FunctionCounter.builder("hedgerow.admission.rejected", admission, a -> a.rejected(priority))
                    .description("Searches refused at once with 503 overloaded, by priority")
                    .tag("priority", priority.label()).register(registry);
        }
        Gauge.builder("hedgerow.admission.queued", admission, AdmissionControl::queued)
                .description("Searches waiting over the limit now").register(registry);
        Gauge.builder("hedgerow.admission.queue.capacity", admission, AdmissionControl::queueCapacity)
                .description("Searches that may wait now: about one per open HTTP connection, within its floor and cap")
                .register(registry);
        FunctionTimer.builder("hedgerow.admission.queue.delay", admission, AdmissionControl::waited,
                        a -> (double) a.waitedNanos(), TimeUnit.NANOSECONDS)
                .description("Time searches waited in the queue before they started (count and total)").register(registry);
        Gauge.builder("hedgerow.admission.queue.last.delay", admission, a -> a.lastWaitNanos() / 1e9)
                .description("Seconds the last search to leave the queue waited in it").baseUnit("seconds")
                .register(registry);
        FunctionCounter.builder("hedgerow.admission.queue.abandoned", admission, AdmissionControl::abandoned)
                .description("Queued searches taken out of the queue because their client disconnected").register(registry);
        for (Refusal reason : Refusal.values()) {
            FunctionCounter.builder("hedgerow.admission.refused", admission, a -> a.refused(reason))
                    .description("Searches refused at once with 503 overloaded, by reason: queue_full, deadline (it"
                            + " would pass while queued), standing_delay (the queue delay kept growing)")
                    .tag("reason", reason.label()).register(registry);
        }
        FunctionCounter.builder("hedgerow.admission.drops", admission, AdmissionControl::drops)
                .description("Admitted searches reported to the limit as drops: failed for want of capacity, or"
                        + " charged with a leaf's busy answer").register(registry);
    }

    private void cacheCounter(String name, String description, ResultCache cache,
            ToLongFunction<ResultCache.Stats> stat) {
        FunctionCounter.builder(name, cache, c -> stat.applyAsLong(c.stats())).description(description).register(registry);
    }
}
