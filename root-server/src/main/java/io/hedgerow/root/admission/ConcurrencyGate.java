package io.hedgerow.root.admission;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many searches may be in flight at the root, learnt from their latency, and the count that
 * holds to it: the half of {@link AdmissionControl} that decides whether a search may start now
 * (the other half decides who waits and who starts next).
 *
 * <p>The limit comes from a {@link Limit} of Netflix's concurrency-limits library ({@link
 * AdmissionSettings.Algorithm}): Gradient2 compares the latency of each search with a long-term
 * average of it and shrinks the limit while the current one is higher (a queue is growing); Vegas
 * estimates the queue from the least latency seen and backs off on drops. The gate around it is
 * ours: an interactive search takes a place while fewer than the limit are in flight, a batch search
 * only while fewer than {@code batchShare} of it are, so batch work is shed first and cannot crowd
 * out interactive work. Each search that took a place reports when it ends ({@link #released}): its
 * latency is a sample of the limit, or a drop when it failed for want of capacity.
 *
 * <p><b>Busy leaves feed the limit.</b> A leaf that answers busy has a full queue: the root is
 * sending more than it can do. Each such answer ({@link #leafBusy()}) makes the next search to end
 * count as a drop, at most one per search in the limit. Vegas (and the fixed limit trivially) act on
 * drops; Gradient2 ignores them by design and sees the latency that the retries add.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe and lock-free on our side: taking a place is a
 * compare-and-set on one counter, so the limit is never exceeded (batch never beyond its share); the
 * limit read is a volatile read, updated under the library's lock when a search ends.
 */
final class ConcurrencyGate {
    private final AdmissionSettings settings;
    /** Null when admission is off. */
    private final Limit limit;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger busyUncharged = new AtomicInteger();
    private final LongAdder admitted = new LongAdder();
    private final LongAdder drops = new LongAdder();

    ConcurrencyGate(AdmissionSettings settings) {
        this.settings = settings;
        this.limit = switch (settings.algorithm()) {
            case GRADIENT2 -> Gradient2Limit.newBuilder()
                    .initialLimit(settings.initialLimit())
                    .minLimit(settings.minLimit())
                    .maxConcurrency(settings.maxLimit())
                    .build();
            case VEGAS -> VegasLimit.newBuilder()
                    .initialLimit(settings.initialLimit())
                    .maxConcurrency(settings.maxLimit())
                    .build();
            case FIXED -> FixedLimit.of(settings.initialLimit());
            case OFF -> null;
        };
    }

    /** Takes a place under the class's cap: the searches in flight with it, or 0 when there is none. */
    int reserve(QueryPriority priority) {
        int cap = cap(priority);
        while (true) {
            int current = inflight.get();
            if (current >= cap) {
                return 0;
            }
            if (inflight.compareAndSet(current, current + 1)) {
                admitted.increment();
                return current + 1;
            }
        }
    }

    /**
     * A search that took a place ended: the place is free, and its latency (or a drop) is a sample.
     *
     * @param startNanos      when its latency sample starts
     * @param inflightAtStart what {@link #reserve} returned for it
     * @param endNanos        when it ended, on the ticker {@code startNanos} came from
     */
    void released(long startNanos, int inflightAtStart, Outcome outcome, long endNanos) {
        inflight.decrementAndGet();
        if (limit == null || outcome == Outcome.IGNORED) {
            return;
        }
        boolean drop = outcome == Outcome.DROPPED || takeBusy();
        if (drop) {
            drops.increment();
        }
        limit.onSample(startNanos, Math.max(1, endNanos - startNanos), inflightAtStart, drop);
    }

    private int cap(QueryPriority priority) {
        if (limit == null) {
            return Integer.MAX_VALUE;
        }
        int current = limit();
        return priority == QueryPriority.BATCH ? Math.max(1, (int) Math.floor(current * settings.batchShare())) : current;
    }

    /** Searches allowed in flight now; {@link Integer#MAX_VALUE} when admission is off. */
    int limit() {
        return limit == null ? Integer.MAX_VALUE : Math.max(settings.minLimit(), limit.getLimit());
    }

    boolean enabled() {
        return limit != null;
    }

    int inflight() {
        return inflight.get();
    }

    long admitted() {
        return admitted.sum();
    }

    long drops() {
        return drops.sum();
    }

    /** A leaf answered busy: the next search to end counts as a drop (see the class comment). */
    void leafBusy() {
        if (limit == null) {
            return;
        }
        int cap = limit();
        while (true) {
            int current = busyUncharged.get();
            if (current >= cap || busyUncharged.compareAndSet(current, current + 1)) {
                return;
            }
        }
    }

    private boolean takeBusy() {
        while (true) {
            int current = busyUncharged.get();
            if (current == 0) {
                return false;
            }
            if (busyUncharged.compareAndSet(current, current - 1)) {
                return true;
            }
        }
    }
}
