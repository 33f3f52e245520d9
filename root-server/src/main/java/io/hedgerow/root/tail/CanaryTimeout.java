package io.hedgerow.root.tail;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.hedge.RequestClass;
import java.util.Objects;

/**
 * How long a canary sub-request may stay unanswered before its query is deemed dangerous: by
 * default 3 times the p99 of the last 10 s of leaf (sub-request) latency of the query's {@link
 * RequestClass}, clamped to [20 ms, 1 s], and the maximum while the class has too few samples; or
 * a fixed timeout ({@link TailSettings#canaryTimeout}).
 *
 * <p>Per class because an expensive query shape (a long disjunction, a broad prefix) legitimately
 * takes many times what a two-term query takes; one window for both would either time out good
 * expensive queries and blocklist them, or wait far too long on a cheap query that hangs.
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
    private final ScaledPercentile[] byClass;

    public CanaryTimeout(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        RequestClass[] classes = RequestClass.values();
        this.byClass = new ScaledPercentile[classes.length];
        for (RequestClass requestClass : classes) {
            byClass[requestClass.ordinal()] = new ScaledPercentile(settings.canaryTimeout(), settings.window(),
                    settings.minSamples(), ticker);
        }
    }

    /** Records one answered sub-request's latency, from send to answer. */
    public void record(RequestClass requestClass, long latencyNanos) {
        byClass[requestClass.ordinal()].record(latencyNanos);
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
