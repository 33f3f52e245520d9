package io.hedgerow.root.tail;

import io.hedgerow.common.time.Ticker;
import java.util.Objects;

/**
 * How long a canary sub-request may stay unanswered before its query is deemed dangerous: by
 * default 3 times the p99 of the last 10 s of leaf (sub-request) latency, clamped to [20 ms, 1 s],
 * and the maximum while there are too few samples; or a fixed timeout ({@link TailSettings#canaryTimeout}).
 *
 * <p>Callers record the latency of every answered sub-request, canary or not, from send to answer:
 * the canary is an ordinary sub-request sent alone, so ordinary sub-requests say what it should
 * take. A canary that times out is not recorded (it has no latency), which keeps one bad query from
 * stretching the timeout for the next.
 *
 * <p><b>Assumptions and guarantees.</b> As for {@link ScaledPercentile}: any number of threads;
 * recording is wait-free but for bucket rotation; the timeout is cached and recomputed at most every
 * {@value ScaledPercentile#REFRESH_MILLIS} ms. Time comes only from the injected {@link Ticker}.
 */
public final class CanaryTimeout {
    private final ScaledPercentile limit;

    public CanaryTimeout(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        this.limit = new ScaledPercentile(settings.canaryTimeout(), settings.window(), settings.minSamples(), ticker);
    }

    /** Records one answered sub-request's latency, from send to answer. */
    public void record(long latencyNanos) {
        limit.record(latencyNanos);
    }

    /** The canary timeout now, in nanoseconds (> 0). */
    public long timeoutNanos() {
        return limit.nanos();
    }

    /** The canary timeout now and where it came from. */
    public ScaledPercentile.Estimate estimate() {
        return limit.estimate();
    }
}
