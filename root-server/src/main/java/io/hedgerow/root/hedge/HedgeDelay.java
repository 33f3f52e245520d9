package io.hedgerow.root.hedge;

import io.hedgerow.common.stats.SlidingLatencyWindow;
import io.hedgerow.common.time.Ticker;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.HdrHistogram.Histogram;

/**
 * The hedge delay: how long a sub-request may stay unanswered before it gets a backup. Adaptive by
 * default, the settings' percentile of recent sub-request latency of the query's {@link
 * RequestClass}, from a {@link SlidingLatencyWindow} per class; a class with fewer than {@code
 * minSamples} observations borrows the window of all classes, and with too few there as well the
 * delay is {@code maxDelay}, so a cold root hedges late rather than on no evidence. The adaptive
 * delay is clamped to {@code [minDelay, maxDelay]}. With a fixed delay in the settings, that delay
 * is used as is.
 *
 * <p>Callers record the latency of answered sub-requests, from send to answer, whichever copy
 * answered. A copy cancelled because the other won has no latency to record; the window therefore
 * leans a little fast while hedging is busy, which errs towards hedging earlier, within the budget.
 *
 * <p>The window of all classes is not recorded into: it is the sum of the class windows (every
 * answer goes to exactly one of them, and they rotate on one ticker with one bucket width), merged
 * when a class with too few samples needs it, at most once per refresh. An answer therefore costs
 * one window record, not two.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads.
 * {@link #record} costs one wait-free window record (and no clock read when the caller passes the
 * time). {@link #delayNanos} costs a ticker read and two volatile reads: reading a percentile
 * merges a window's histograms under its lock (the all-classes reading, every class window's), so the
 * estimate is cached and recomputed at most once every {@value #REFRESH_MILLIS} ms per class, by
 * whichever caller first finds it stale (the others keep using the previous value meanwhile). A
 * delay therefore reflects observations up to {@value #REFRESH_MILLIS} ms old. Time comes only from
 * the injected {@link Ticker}.
 */
public final class HedgeDelay {
    /** How often a class's delay is recomputed, at most. */
    public static final long REFRESH_MILLIS = 100;
    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);
    private static final int WINDOW_BUCKETS = 10;

    /** Where a delay came from, for traces and tests. */
    public enum Basis {
        /** The settings' fixed delay. */
        FIXED,
        /** The percentile of the request class's own window. */
        CLASS_WINDOW,
        /** The percentile of the window of all classes: the class had too few samples. */
        GLOBAL_WINDOW,
        /** {@code maxDelay}: even the window of all classes had too few samples. */
        TOO_FEW_SAMPLES
    }

    /**
     * One computed delay.
     *
     * @param delayNanos the hedge delay, clamped unless {@code basis} is {@link Basis#FIXED}
     * @param basis      where it came from
     */
    public record Estimate(long delayNanos, Basis basis) {
        public Estimate {
            Objects.requireNonNull(basis, "basis");
            if (delayNanos < 0) {
                throw new IllegalArgumentException("delayNanos: " + delayNanos + " (expected: >= 0)");
            }
        }
    }

    private final HedgeSettings settings;
    private final Ticker ticker;
    private final long minDelayNanos;
    private final long maxDelayNanos;
    private final Estimate fixed;
    private final SlidingLatencyWindow[] byClass;
    /** The sum of the class windows, rebuilt at each all-classes reading; guarded by this. */
    private final Histogram globalSum = SlidingLatencyWindow.newSum();
    private final AtomicLong[] nextRefreshNanos;
    private final AtomicReferenceArray<Estimate> cached;

    public HedgeDelay(HedgeSettings settings, Ticker ticker) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.minDelayNanos = settings.minDelay().toNanos();
        this.maxDelayNanos = settings.maxDelay().toNanos();
        this.fixed = settings.isAdaptive() ? null : new Estimate(settings.fixedDelay().toNanos(), Basis.FIXED);
        long bucketNanos = settings.window().toNanos() / WINDOW_BUCKETS;
        RequestClass[] classes = RequestClass.values();
        this.byClass = new SlidingLatencyWindow[classes.length];
        this.nextRefreshNanos = new AtomicLong[classes.length];
        this.cached = new AtomicReferenceArray<>(classes.length);
        long now = ticker.nanoTime();
        for (int i = 0; i < classes.length; i++) {
            byClass[i] = new SlidingLatencyWindow(ticker, bucketNanos, WINDOW_BUCKETS);
            nextRefreshNanos[i] = new AtomicLong(now); // due at once
            cached.set(i, new Estimate(maxDelayNanos, Basis.TOO_FEW_SAMPLES));
        }
    }

    /** The settings this delay follows. */
    public HedgeSettings settings() {
        return settings;
    }

    /** Records one answered sub-request's latency, in its class's window (the global one is their sum). */
    public void record(RequestClass requestClass, long latencyNanos) {
        byClass[requestClass.ordinal()].record(latencyNanos);
    }

    /** As {@link #record(RequestClass, long)}, at {@code nowNanos} on this delay's ticker (the answer's time). */
    public void record(RequestClass requestClass, long latencyNanos, long nowNanos) {
        byClass[requestClass.ordinal()].record(latencyNanos, nowNanos);
    }

    /**
     * The window of recent sub-request latency of one class, for other limits learnt from the same
     * observations (the canary timeout), so that each answer is recorded once.
     */
    public SlidingLatencyWindow window(RequestClass requestClass) {
        return byClass[requestClass.ordinal()];
    }

    /** The hedge delay for a sub-request of {@code requestClass}, in nanoseconds (>= 0). */
    public long delayNanos(RequestClass requestClass) {
        return estimate(requestClass).delayNanos();
    }

    /** The hedge delay and where it came from. */
    public Estimate estimate(RequestClass requestClass) {
        if (fixed != null) {
            return fixed;
        }
        int index = requestClass.ordinal();
        AtomicLong next = nextRefreshNanos[index];
        long due = next.get();
        long now = ticker.nanoTime();
        if (now - due >= 0 && next.compareAndSet(due, now + REFRESH_NANOS)) {
            Estimate fresh = compute(byClass[index]);
            cached.set(index, fresh);
            return fresh;
        }
        return cached.get(index);
    }

    private Estimate compute(SlidingLatencyWindow classWindow) {
        double percentile = settings.percentile();
        SlidingLatencyWindow.Reading own = classWindow.read(percentile);
        if (own.count() >= settings.minSamples()) {
            return new Estimate(clamp(own.percentileNanos()), Basis.CLASS_WINDOW);
        }
        SlidingLatencyWindow.Reading all = readAllClasses(percentile);
        if (all.count() >= settings.minSamples()) {
            return new Estimate(clamp(all.percentileNanos()), Basis.GLOBAL_WINDOW);
        }
        return new Estimate(maxDelayNanos, Basis.TOO_FEW_SAMPLES);
    }

    /** The window of all classes: the class windows summed now (each rotated to now first). */
    synchronized SlidingLatencyWindow.Reading readAllClasses(double percentile) {
        globalSum.reset();
        for (SlidingLatencyWindow window : byClass) {
            window.addTo(globalSum);
        }
        return new SlidingLatencyWindow.Reading(globalSum.getTotalCount(), globalSum.getValueAtPercentile(percentile));
    }

    private long clamp(long nanos) {
        return Math.max(minDelayNanos, Math.min(maxDelayNanos, nanos));
    }
}
