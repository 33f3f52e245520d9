package io.hedgerow.common.stats;

import io.hedgerow.common.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latency observations of the last {@code buckets * bucketNanos}, kept as a ring of HdrHistogram
 * interval histograms. Policies (hedge delay, cutoffs) read percentiles of recent latency from it.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #record} may be called from any number of threads
 * and never waits: it is wait-free except for the one caller per bucket that rotates the ring, and
 * that one only takes the window's lock if it is free ({@code tryLock}): a recorder that finds a
 * reader merging or another thread rotating records and goes on, and the next rotation or read
 * takes the ring to its time (its value counts in the bucket that is current when the ring next
 * takes in recorded values, as a value recorded without a rotation always did). Readers take the
 * lock. Readers see every value
 * recorded in completed buckets plus those of the current bucket at the time of the read's
 * rotation; a value recorded concurrently with a read may show in the next read instead. Time
 * comes only from the injected {@link Ticker}, so tests drive the window exactly.
 */
public final class SlidingLatencyWindow {
    private static final long LOWEST_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Ticker ticker;
    private final long bucketNanos;
    private final Recorder recorder = new Recorder(LOWEST_NANOS, HIGHEST_NANOS, 2);
    /** Guards the ring, {@code merged} and {@code spare}; recorders only ever try it. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Histogram[] ring;
    private final Histogram merged = new Histogram(LOWEST_NANOS, HIGHEST_NANOS, 2);
    private Histogram spare;
    private long currentBucketStartNanos;
    private int currentIndex;
    private volatile long nextRotationNanos;

    public SlidingLatencyWindow(Ticker ticker, long bucketNanos, int buckets) {
        if (bucketNanos <= 0) {
            throw new IllegalArgumentException("bucketNanos: " + bucketNanos + " (expected: > 0)");
        }
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets: " + buckets + " (expected: >= 1)");
        }
        this.ticker = ticker;
        this.bucketNanos = bucketNanos;
        this.ring = new Histogram[buckets];
        for (int i = 0; i < buckets; i++) {
            ring[i] = new Histogram(LOWEST_NANOS, HIGHEST_NANOS, 2);
        }
        this.currentBucketStartNanos = ticker.nanoTime();
        this.nextRotationNanos = currentBucketStartNanos + bucketNanos;
    }

    /** A window of ten one-second buckets. */
    public static SlidingLatencyWindow tenSeconds(Ticker ticker) {
        return new SlidingLatencyWindow(ticker, TimeUnit.SECONDS.toNanos(1), 10);
    }

    /** Records one latency; values outside [1 us, 60 s] are clamped into it. */
    public void record(long latencyNanos) {
        record(latencyNanos, ticker.nanoTime());
    }

    /**
     * As {@link #record(long)}, at {@code nowNanos} read from this window's ticker by the caller: an
     * answer's bookkeeping reads the clock once for all its windows, not once a window. A time
     * behind the window's current bucket (another thread rotated it meanwhile) lands in that bucket.
     */
    public void record(long latencyNanos, long nowNanos) {
        // Rotate first, so a value recorded after a quiet spell lands in the current bucket; never
        // wait for the lock on the answer path: its holder (a reader or a rotation) or the next one
        // takes the ring to the present.
        if (nowNanos - nextRotationNanos >= 0 && lock.tryLock()) {
            try {
                rotateIfDue(nowNanos);
            } finally {
                lock.unlock();
            }
        }
        recorder.recordValue(Math.max(LOWEST_NANOS, Math.min(HIGHEST_NANOS, latencyNanos)));
    }

    /** The value at {@code percentile} (0..100) of the window, in nanoseconds; 0 when empty. */
    public long percentileNanos(double percentile) {
        return readMerged(window -> window.getValueAtPercentile(percentile));
    }

    /** Number of observations in the window. */
    public long count() {
        return readMerged(Histogram::getTotalCount);
    }

    /** The window's count and its value at {@code percentile} (0..100), read together. */
    public record Reading(long count, long percentileNanos) {
    }

    /** The count and the value at {@code percentile}, from one look at the window (one merge, not two). */
    public Reading read(double percentile) {
        return readMerged(window -> new Reading(window.getTotalCount(), window.getValueAtPercentile(percentile)));
    }

    /**
     * Adds the whole window to {@code sum} (a histogram of this window's range and precision,
     * {@link #newSum()}): readers of several windows together ({@code HedgeDelay}'s all-classes
     * reading) merge them when they read, rather than every writer recording into one more window.
     * The sum of windows that were given the same ticker and bucket width is the window every one
     * of their values would have been recorded into.
     */
    public void addTo(Histogram sum) {
        readMerged(window -> {
            sum.add(window);
            return null;
        });
    }

    /** An empty histogram of this class's range and precision, for {@link #addTo}. */
    public static Histogram newSum() {
        return new Histogram(LOWEST_NANOS, HIGHEST_NANOS, 2);
    }

    /** A copy of the whole window, for reports. */
    public Histogram snapshot() {
        return readMerged(Histogram::copy);
    }

    /** Brings the window to the present and applies {@code read} to the whole of it, under the lock. */
    private <T> T readMerged(Function<Histogram, T> read) {
        lock.lock();
        try {
            rotateIfDue();
            refreshMerged();
            return read.apply(merged);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes in what the current bucket has collected so far. {@code merged} is kept equal to the
     * sum of the ring as it changes (the new values added, an expired bucket subtracted), rather
     * than re-added from all the buckets at every read: a tenth of the work, which the root does a
     * few hundred times a second, one window per policy and request class.
     */
    private void refreshMerged() {
        spare = recorder.getIntervalHistogram(spare);
        if (spare.getTotalCount() > 0) {
            ring[currentIndex].add(spare);
            merged.add(spare);
        }
    }

    private void rotateIfDue() {
        rotateIfDue(ticker.nanoTime());
    }

    private void rotateIfDue(long now) {
        if (now - (currentBucketStartNanos + bucketNanos) < 0) {
            return;
        }
        refreshMerged();
        long elapsedBuckets = (now - currentBucketStartNanos) / bucketNanos;
        int toClear = (int) Math.min(elapsedBuckets, ring.length);
        for (int i = 1; i <= toClear; i++) {
            Histogram expired = ring[(currentIndex + i) % ring.length];
            if (expired.getTotalCount() > 0) {
                merged.subtract(expired);
                expired.reset();
            }
        }
        currentIndex = (int) ((currentIndex + elapsedBuckets) % ring.length);
        currentBucketStartNanos += elapsedBuckets * bucketNanos;
        nextRotationNanos = currentBucketStartNanos + bucketNanos;
    }
}
