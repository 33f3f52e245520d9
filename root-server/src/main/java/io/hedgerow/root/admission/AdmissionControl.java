package io.hedgerow.root.admission;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.hedgerow.api.QueryPriority;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Admission control at the root: a bound on the searches in flight, learnt from their latency, so
 * that what the cluster cannot serve in time is refused at once (a 503 with {@code Retry-After})
 * instead of queueing behind work that will then miss its deadline too. Without it, a root offered
 * twice its capacity sends everything on, leaves fill their queues and answer busy, retries and
 * backups pile on, and nearly every result comes back late or tainted.
 *
 * <p>The limit comes from a {@link Limit} of Netflix's concurrency-limits library ({@link
 * AdmissionSettings.Algorithm}): Gradient2 compares the latency of each search with a long-term
 * average of it and shrinks the limit while the current one is higher (a queue is growing); Vegas
 * estimates the queue from the least latency seen and backs off on drops. The gate around it is
 * ours: an interactive search is admitted while fewer than the limit are in flight, a batch search
 * only while fewer than {@code batchShare} of it are, so batch work is shed first and cannot crowd
 * out interactive work. Each admitted search reports when it ends ({@link Permit#release}): its
 * latency from the first byte of its request (so time queued at the root counts), or a drop when it
 * failed for want of capacity (a timeout, no partition answering). Searches that measure nothing
 * about the cluster's load (served from the cache, refused as bad or blocklisted) are left out, so
 * a cache hit's few microseconds do not pass for an idle cluster.
 *
 * <p><b>Busy leaves feed the limit.</b> A leaf that answers busy has a full queue: the root is
 * sending more than it can do. Each such answer ({@link #leafBusy()}) makes the next search to end
 * count as a drop, at most one per search in the limit. Vegas (and the fixed limit trivially) act on
 * drops; Gradient2 ignores them by design and sees the latency that the retries add.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every event loop admits and releases searches
 * of its own connections. Admission is a compare-and-set on one counter, so the limit is never
 * exceeded (batch never beyond its share); the limit read is a volatile read, updated under the
 * library's lock when a search ends. Time comes from the caller (ticker readings), never from a
 * clock of this class: tests drive it with a manual ticker.
 */
public final class AdmissionControl {
    /** How an admitted search ended, for the limit. */
    public enum Outcome {
        /** It ran (complete or tainted): its latency is a sample. */
        SUCCESS,
        /** It failed for want of capacity (timed out, nothing answered): a drop. */
        DROPPED,
        /** It says nothing about load (a cache hit, a bad or blocklisted query): no sample. */
        IGNORED
    }

    private final AdmissionSettings settings;
    /** Null when admission is off. */
    private final Limit limit;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger busyUncharged = new AtomicInteger();
    private final LongAdder admitted = new LongAdder();
    private final LongAdder drops = new LongAdder();
    private final Map<QueryPriority, LongAdder> rejected = new EnumMap<>(QueryPriority.class);

    public AdmissionControl(AdmissionSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
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
        for (QueryPriority priority : QueryPriority.values()) {
            rejected.put(priority, new LongAdder());
        }
    }

    public AdmissionSettings settings() {
        return settings;
    }

    /**
     * Admits a search if the limit allows it.
     *
     * @param startNanos when the search's request began to arrive, on the caller's ticker
     * @return its permit, to release when it ends; null when it is refused (counted)
     */
    public Permit tryAcquire(QueryPriority priority, long startNanos) {
        int cap = cap(priority);
        while (true) {
            int current = inflight.get();
            if (current >= cap) {
                rejected.get(priority).increment();
                return null;
            }
            if (inflight.compareAndSet(current, current + 1)) {
                admitted.increment();
                return new Permit(startNanos, current + 1);
            }
        }
    }

    private int cap(QueryPriority priority) {
        if (limit == null) {
            return Integer.MAX_VALUE;
        }
        int current = limit();
        return priority == QueryPriority.BATCH ? Math.max(1, (int) Math.floor(current * settings.batchShare())) : current;
    }

    /** Searches allowed in flight now; {@link Integer#MAX_VALUE} when admission is off. */
    public int limit() {
        return limit == null ? Integer.MAX_VALUE : Math.max(settings.minLimit(), limit.getLimit());
    }

    /** Whether admission control is on. */
    public boolean enabled() {
        return limit != null;
    }

    /** Searches admitted and not yet ended. */
    public int inflight() {
        return inflight.get();
    }

    public long admitted() {
        return admitted.sum();
    }

    public long rejected(QueryPriority priority) {
        return rejected.get(priority).sum();
    }

    /** Searches that ended as drops (failed, or charged with a busy answer). */
    public long drops() {
        return drops.sum();
    }

    /** A leaf answered busy: the next search to end counts as a drop (see the class comment). */
    public void leafBusy() {
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

    /** One admitted search. Release it exactly once; later releases are ignored. */
    public final class Permit {
        private final long startNanos;
        private final int inflightAtStart;
        private boolean released;

        private Permit(long startNanos, int inflightAtStart) {
            this.startNanos = startNanos;
            this.inflightAtStart = inflightAtStart;
        }

        /**
         * The search ended.
         *
         * @param endNanos when, on the ticker {@code startNanos} came from
         */
        public void release(Outcome outcome, long endNanos) {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
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
    }
}
