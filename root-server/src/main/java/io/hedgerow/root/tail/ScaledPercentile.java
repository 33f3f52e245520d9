package io.hedgerow.root.tail;

import io.hedgerow.common.stats.SlidingLatencyWindow;
import io.hedgerow.common.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Computes an {@link AdaptiveLimit} from a {@link SlidingLatencyWindow}: {@code factor} times the
 * window's {@code percentile}, clamped to {@code [min, max]}. While the window holds fewer than
 * {@code minSamples} observations the limit is {@code max}, so a cold root is patient rather than
 * hasty on no evidence. A fixed limit is used as is.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads.
 * {@link #record} is a wait-free window record (except for the one caller per bucket that rotates
 * the window). {@link #estimate} costs a ticker read and two volatile reads: reading a percentile
 * merges the window's histograms under its lock, so the estimate is cached and recomputed at most
 * once every {@value #REFRESH_MILLIS} ms, by whichever caller first finds it stale (the others keep
 * the previous value meanwhile), as {@code io.hedgerow.root.hedge.HedgeDelay} does. An estimate
 * therefore reflects observations up to {@value #REFRESH_MILLIS} ms old. Time comes only from the
 * injected {@link Ticker}.
 */
public final class ScaledPercentile {
    /** How often the limit is recomputed, at most. */
    public static final long REFRESH_MILLIS = 100;
    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);
    private static final int WINDOW_BUCKETS = 10;

    /** Where a limit came from, for traces, metrics and tests. */
    public enum Basis {
        /** The settings' fixed limit. */
        FIXED,
        /** The scaled percentile of the window, clamped. */
        WINDOW,
        /** {@code max}: the window had too few samples. */
        TOO_FEW_SAMPLES
    }

    /**
     * One computed limit.
     *
     * @param nanos the limit, clamped unless {@code basis} is {@link Basis#FIXED}
     * @param basis where it came from
     */
    public record Estimate(long nanos, Basis basis) {
        public Estimate {
            Objects.requireNonNull(basis, "basis");
            if (nanos < 0) {
                throw new IllegalArgumentException("nanos: " + nanos + " (expected: >= 0)");
            }
        }
    }

    private final AdaptiveLimit limit;
    private final Ticker ticker;
    private final int minSamples;
    private final long minNanos;
    private final long maxNanos;
    private final Estimate fixed;
    private final SlidingLatencyWindow window;
    private final AtomicLong nextRefreshNanos;
    private volatile Estimate cached;

    /**
     * @param limit      how the limit is derived
     * @param window     how far back the window looks (kept as ten buckets; at least 10 ns)
     * @param minSamples the fewest observations the window needs before its percentile is used
     */
    public ScaledPercentile(AdaptiveLimit limit, Duration window, int minSamples, Ticker ticker) {
        this(limit, ownWindow(window, ticker), minSamples, ticker);
    }

    /**
     * A limit over a window that something else records into (its owner); {@link #record} then
     * records there too.
     */
    public ScaledPercentile(AdaptiveLimit limit, SlidingLatencyWindow window, int minSamples, Ticker ticker) {
        this.limit = Objects.requireNonNull(limit, "limit");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.window = Objects.requireNonNull(window, "window");
        if (minSamples < 1) {
            throw new IllegalArgumentException("minSamples: " + minSamples + " (expected: >= 1)");
        }
        this.minSamples = minSamples;
        this.minNanos = limit.min().toNanos();
        this.maxNanos = limit.max().toNanos();
        this.fixed = limit.isAdaptive() ? null : new Estimate(limit.fixed().toNanos(), Basis.FIXED);
        this.nextRefreshNanos = new AtomicLong(ticker.nanoTime()); // due at once
        this.cached = new Estimate(maxNanos, Basis.TOO_FEW_SAMPLES);
    }

    private static SlidingLatencyWindow ownWindow(Duration window, Ticker ticker) {
        Objects.requireNonNull(window, "window");
        long bucketNanos = window.toNanos() / WINDOW_BUCKETS;
        if (bucketNanos < 1) {
            throw new IllegalArgumentException("window: " + window + " (expected: >= 10ns)");
        }
        return new SlidingLatencyWindow(Objects.requireNonNull(ticker, "ticker"), bucketNanos, WINDOW_BUCKETS);
    }

    /** How the limit is derived. */
    public AdaptiveLimit limit() {
        return limit;
    }

    /** Records one observed latency. Recorded even with a fixed limit, so a metric can show the window. */
    public void record(long latencyNanos) {
        window.record(latencyNanos);
    }

    /** The limit now, in nanoseconds. */
    public long nanos() {
        return estimate().nanos();
    }

    /** The limit now and where it came from. */
    public Estimate estimate() {
        if (fixed != null) {
            return fixed;
        }
        long due = nextRefreshNanos.get();
        long now = ticker.nanoTime();
        if (now - due >= 0 && nextRefreshNanos.compareAndSet(due, now + REFRESH_NANOS)) {
            Estimate fresh = compute();
            cached = fresh;
            return fresh;
        }
        return cached;
    }

    private Estimate compute() {
        SlidingLatencyWindow.Reading reading = window.read(limit.percentile());
        if (reading.count() < minSamples) {
            return new Estimate(maxNanos, Basis.TOO_FEW_SAMPLES);
        }
        double scaled = reading.percentileNanos() * limit.factor();
        // Compare as doubles first: a huge factor must clamp, not overflow a long.
        long nanos = scaled >= maxNanos ? maxNanos : Math.max(minNanos, Math.round(scaled));
        return new Estimate(nanos, Basis.WINDOW);
    }
}
