package io.hedgerow.root.tail;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.RequestClass;
import java.util.Objects;

/**
 * How long a canary sub-request may stay unanswered before its query is deemed dangerous: by
 * default 3 times the p99 of the last 10 s of leaf (sub-request) latency of the query's {@link
 * RequestClass}, clamped to [100 ms, 1 s], and the maximum while the class has too few samples; or
 * a fixed timeout ({@link TailSettings#canaryTimeout}).
 *
 * <p>Per class because an expensive query shape (a long disjunction, a broad prefix) legitimately
 * takes many times what a two-term query takes; one window for both would either time out good
 * expensive queries and blocklist them, or wait far too long on a cheap query that hangs.
 *
 * <p>It reads the per-class windows of the {@link HedgeDelay}, which every answered sub-request
 * (canary or not) is recorded into once: the canary is an ordinary sub-request sent alone, so
 * ordinary sub-requests say what it should take. A canary that times out is not recorded (it has no
 * latency), which keeps one bad query from stretching the timeout for the next. The window is
 * therefore the hedge window (10 s by default), and it also holds the lower bounds the hedge delay
 * records for copies a backup beat, which only makes the timeout more patient.
 *
 * <p><b>Assumptions and guarantees.</b> As for {@link ScaledPercentile}: any number of threads;
 * recording is wait-free but for bucket rotation; the timeout is cached and recomputed at most every
 * {@value ScaledPercentile#REFRESH_MILLIS} ms. Time comes only from the injected {@link Ticker}.
 */
public final class CanaryTimeout {
    private final ScaledPercentile[] byClass;

    /** @param latency where sub-request latency is recorded, per class */
    public CanaryTimeout(TailSettings settings, HedgeDelay latency, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        RequestClass[] classes = RequestClass.values();
        this.byClass = new ScaledPercentile[classes.length];
        for (RequestClass requestClass : classes) {
            byClass[requestClass.ordinal()] = new ScaledPercentile(settings.canaryTimeout(),
                    latency.window(requestClass), settings.minSamples(), ticker);
        }
    }

    /** The canary timeout now for queries of this class, in nanoseconds (> 0). */
    public long timeoutNanos(RequestClass requestClass) {
        return byClass[requestClass.ordinal()].nanos();
    }

    /** The canary timeout now for queries of this class, and where it came from. */
    public ScaledPercentile.Estimate estimate(RequestClass requestClass) {
        return byClass[requestClass.ordinal()].estimate();
    }
}
