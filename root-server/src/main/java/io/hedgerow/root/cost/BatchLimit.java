package io.hedgerow.root.cost;

import io.hedgerow.common.time.Ticker;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How many batch sub-requests each leaf may hold at once, adjusted from the interactive latency:
 * additive increase, multiplicative decrease, as TCP's congestion window. Each window ({@link
 * BatchAdmissionSettings#window()}) the p99 of the interactive sub-requests answered in it is
 * compared with the lowest window p99 of the recent past (the baseline: what interactive work sees
 * when batch leaves it alone, as a min-filter learns a path's round trip): past {@code tolerance}
 * times the baseline (and past the floor) the limit is halved, otherwise it grows by one, up to the
 * ceiling. A window with too few interactive answers raises the limit: there is little interactive
 * work to protect. The limit starts at its floor, so the first windows, which the baseline is
 * learnt from, see batch at its least.
 *
 * <p><b>Precision.</b> A window's samples go into an HdrHistogram of microseconds, from 0 to 60 s,
 * with three significant digits: a window p99 (and so the baseline) is the lowest value of the
 * p99's histogram bucket, at most 0.1% (and under 1 us) below the exact p99 of the samples. Round
 * trips past 60 s count as 60 s. Every sample of a window counts (there is no cap on samples).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe and lock-free on the answer path: every event
 * loop records into it and reads it. {@link #recordInteractive} is wait-free (an HdrHistogram
 * {@link Recorder}); {@link #limit()} and the other reads are volatile reads. Time comes only from
 * the injected ticker: windows close on the first call after their end, made by the one caller
 * that wins a compare-and-set on the closing flag (it reads the window's interval histogram, whose
 * reader side is an uncontended monitor, once per window); callers that lose it read the limit as
 * it was and record into the histogram as usual. A sample recorded while a window is being closed
 * may count in that window or the next: the window's end moves by the length of a close, a few
 * microseconds, where a lock made such a sample wait for the close and count in the next.
 */
public final class BatchLimit {
    /** Round trips are recorded in microseconds, up to a minute; longer ones count as a minute. */
    static final long HIGHEST_MICROS = 60_000_000L;
    static final int SIGNIFICANT_DIGITS = 3;

    private final BatchAdmissionSettings settings;
    private final Ticker ticker;
    private final long windowNanos;
    private final Recorder samples = new Recorder(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    /** Set by the one caller closing windows; everything below it but the volatiles is its alone. */
    private final AtomicBoolean closing = new AtomicBoolean();
    private final long[] windowP99s;
    private int windowsSeen;
    private Histogram lastWindow; // recycled into the next interval read
    private volatile long windowEndNanos;
    private volatile int limit;
    private volatile long lastP99Nanos;
    private volatile long baselineNanos;

    public BatchLimit(BatchAdmissionSettings settings, Ticker ticker) {
        this.settings = settings;
        this.ticker = ticker;
        this.windowNanos = settings.window().toNanos();
        this.windowP99s = new long[settings.baselineWindows()];
        this.windowEndNanos = ticker.nanoTime() + windowNanos;
        this.limit = settings.minInFlight();
    }

    /** An interactive sub-request answered after {@code roundTripNanos}. */
    public void recordInteractive(long roundTripNanos) {
        recordInteractive(roundTripNanos, ticker.nanoTime());
    }

    /**
     * As {@link #recordInteractive(long)}, answered at {@code nowNanos} on this limit's ticker: the
     * answer's own clock read, so recording costs no clock read. A time before the current window's
     * start (another loop closed it meanwhile) counts in the current window.
     */
    public void recordInteractive(long roundTripNanos, long nowNanos) {
        roll(nowNanos);
        samples.recordValue(Math.max(0, Math.min(HIGHEST_MICROS, roundTripNanos / 1000)));
    }

    /** The most batch sub-requests one leaf may hold now. */
    public int limit() {
        roll();
        return limit;
    }

    /** The last closed window's interactive p99 (0 before one closed with enough samples). */
    public long lastP99Nanos() {
        roll(); // windows close lazily: a reader after a window's end sees it closed
        return lastP99Nanos;
    }

    /** The lowest recent window p99 the limit compares with (0 before one). */
    public long baselineNanos() {
        roll();
        return baselineNanos;
    }

    /** Closes every window that has ended, adjusting the limit once for each. */
    private void roll() {
        roll(ticker.nanoTime());
    }

    private void roll(long nowNanos) {
        if (nowNanos - windowEndNanos < 0 || !closing.compareAndSet(false, true)) {
            return; // nothing ended, or another caller is closing it: the limit as it was
        }
        try {
            long endNanos = windowEndNanos; // re-read: the last closer may have moved it
            while (nowNanos - endNanos >= 0) {
                closeWindow();
                endNanos += windowNanos;
                if (nowNanos - endNanos >= windowNanos * (long) settings.baselineWindows()) {
                    endNanos = nowNanos + windowNanos; // idle for long: no point closing empty windows one by one
                }
                windowEndNanos = endNanos;
            }
        } finally {
            closing.set(false);
        }
    }

    /** The closing flag, for a test that sets it (as a closer would) to show that no caller waits for it. */
    AtomicBoolean closingFlag() {
        return closing;
    }

    private void closeWindow() {
        Histogram window = samples.getIntervalHistogram(lastWindow);
        lastWindow = window;
        if (window.getTotalCount() < settings.minSamples()) {
            limit = Math.min(settings.maxInFlight(), limit + 1);
            return;
        }
        // The bucket's lowest value: an exact sample (within the significant digits) reads as itself.
        long p99 = window.lowestEquivalentValue(window.getValueAtPercentile(99)) * 1000;
        lastP99Nanos = p99;
        windowP99s[windowsSeen++ % windowP99s.length] = p99;
        long baseline = Long.MAX_VALUE;
        for (int i = 0; i < Math.min(windowsSeen, windowP99s.length); i++) {
            baseline = Math.min(baseline, windowP99s[i]);
        }
        baselineNanos = baseline;
        boolean hurt = p99 > settings.floor().toNanos() && p99 > settings.tolerance() * baseline;
        limit = hurt ? Math.max(settings.minInFlight(), limit / 2) : Math.min(settings.maxInFlight(), limit + 1);
    }
}
