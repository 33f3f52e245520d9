package io.hedgerow.root.cost;

import io.hedgerow.common.time.Ticker;
import java.util.Arrays;

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
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every event loop records into it and reads it;
 * each call holds its lock briefly (a window's samples are sorted once, when it closes). Time comes
 * only from the injected ticker: windows close on the first call after their end.
 */
public final class BatchLimit {
    /** Interactive samples kept per window at most; past it, the latest are kept. */
    static final int MAX_SAMPLES = 8192;

    private final BatchAdmissionSettings settings;
    private final Ticker ticker;
    private final long windowNanos;
    private final long[] windowP99s;
    private int windowsSeen;
    private long[] samples = new long[256];
    private int count;
    private int overflow;
    private long windowEndNanos;
    private int limit;
    private long lastP99Nanos;
    private long baselineNanos;

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
     * answer's own clock read, so the lock is held for no clock read. A time before the current
     * window's start (another loop closed it meanwhile) counts in the current window, as it would
     * had this call taken the lock first.
     */
    public synchronized void recordInteractive(long roundTripNanos, long nowNanos) {
        roll(nowNanos);
        if (count == samples.length) {
            if (count == MAX_SAMPLES) {
                // A window this busy keeps its latest samples: overwrite the oldest.
                samples[overflow++ % MAX_SAMPLES] = roundTripNanos;
                return;
            }
            samples = Arrays.copyOf(samples, Math.min(MAX_SAMPLES, samples.length * 2));
        }
        samples[count++] = roundTripNanos;
    }

    /** The most batch sub-requests one leaf may hold now. */
    public synchronized int limit() {
        roll();
        return limit;
    }

    /** The last closed window's interactive p99 (0 before one closed with enough samples). */
    public synchronized long lastP99Nanos() {
        roll(); // windows close lazily: a reader after a window's end sees it closed
        return lastP99Nanos;
    }

    /** The lowest recent window p99 the limit compares with (0 before one). */
    public synchronized long baselineNanos() {
        roll();
        return baselineNanos;
    }

    /** Closes every window that has ended, adjusting the limit once for each. */
    private void roll() {
        roll(ticker.nanoTime());
    }

    private void roll(long nowNanos) {
        while (nowNanos - windowEndNanos >= 0) {
            closeWindow();
            windowEndNanos += windowNanos;
            if (nowNanos - windowEndNanos >= windowNanos * (long) settings.baselineWindows()) {
                windowEndNanos = nowNanos + windowNanos; // idle for long: no point closing empty windows one by one
            }
        }
    }

    private void closeWindow() {
        if (count < settings.minSamples()) {
            count = 0;
            overflow = 0;
            limit = Math.min(settings.maxInFlight(), limit + 1);
            return;
        }
        Arrays.sort(samples, 0, count);
        long p99 = samples[Math.min(count - 1, (int) Math.ceil(count * 0.99) - 1)];
        count = 0;
        overflow = 0;
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
