package io.hedgerow.root.hedge;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How the root hedges: the cluster's default mode, how the hedge delay is derived, how much extra
 * load backups may add, and when the second copy of a tied request goes out. Immutable; parsed once
 * at start-up.
 *
 * @param defaultMode        the mode of a query that names none
 * @param percentile         the percentile (0..100] of recent sub-request latency a sub-request must
 *                           exceed before it gets a backup
 * @param window             how far back the latency windows look (at least 10 ms; kept as ten buckets)
 * @param minDelay           the shortest adaptive hedge delay
 * @param maxDelay           the longest adaptive hedge delay, and the delay used while there are too
 *                           few samples to trust
 * @param minSamples         the fewest samples a window needs before its percentile is used
 * @param fixedDelay         a hedge delay to use instead of the adaptive one; {@code null} for adaptive
 * @param budgetRatio        backups allowed per primary sub-request, over the budget window
 * @param budgetMinPerSecond backups allowed per second on top of the ratio, so a quiet root can still
 *                           hedge (Finagle's {@code minRetriesPerSec})
 * @param retryFloorPerSecond retries after a failure allowed per second beyond what backups may use
 *                           (Finagle's {@code minRetriesPerSec} as a floor): retries and backups are
 *                           charged to one budget, but a retry may go past the backups' limit by this
 *                           much, so a leaf crash, which retries every sub-request it held at once,
 *                           is not refused because hedging spent the budget
 * @param budgetWindow       how long a primary funds backups: 1 s to 60 s, as Finagle bounds its
 *                           budget's ttl; shorter makes the budget jumpy, longer lets the primaries of
 *                           a calm minute fund a burst of backups in an overload
 * @param tiedDelay          the delay before a tied request's second copy; {@code null} to derive it
 *                           from the measured round trip ({@link RoundTrip#tiedDelayNanos})
 * @param tiedMaxDelay       the longest derived delay of a tied request's second copy
 */
public record HedgeSettings(
        HedgeMode defaultMode,
        double percentile,
        Duration window,
        Duration minDelay,
        Duration maxDelay,
        int minSamples,
        Duration fixedDelay,
        double budgetRatio,
        double budgetMinPerSecond,
        double retryFloorPerSecond,
        Duration budgetWindow,
        Duration tiedDelay,
        Duration tiedMaxDelay) {

    private static final Duration MIN_WINDOW = Duration.ofMillis(10);
    private static final Duration MIN_BUDGET_WINDOW = Duration.ofSeconds(1);
    private static final Duration MAX_BUDGET_WINDOW = Duration.ofSeconds(60);

    public HedgeSettings {
        Objects.requireNonNull(defaultMode, "defaultMode");
        if (!(percentile > 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile: " + percentile + " (expected: > 0 and <= 100)");
        }
        requireAtLeast("window", window, MIN_WINDOW);
        requireAtLeast("minDelay", minDelay, Duration.ZERO);
        requireAtLeast("maxDelay", maxDelay, Duration.ZERO);
        if (maxDelay.isZero() || maxDelay.compareTo(minDelay) < 0) {
            throw new IllegalArgumentException("maxDelay: " + Durations.format(maxDelay)
                    + " (expected: > 0 and >= minDelay " + Durations.format(minDelay) + ")");
        }
        if (minSamples < 1) {
            throw new IllegalArgumentException("minSamples: " + minSamples + " (expected: >= 1)");
        }
        if (fixedDelay != null) {
            requireAtLeast("fixedDelay", fixedDelay, Duration.ZERO);
        }
        if (!(budgetRatio >= 0 && budgetRatio <= 1)) {
            throw new IllegalArgumentException("budgetRatio: " + budgetRatio + " (expected: >= 0.0 and <= 1.0)");
        }
        if (!(budgetMinPerSecond >= 0 && Double.isFinite(budgetMinPerSecond))) {
            throw new IllegalArgumentException("budgetMinPerSecond: " + budgetMinPerSecond + " (expected: >= 0.0, finite)");
        }
        if (!(retryFloorPerSecond >= 0 && Double.isFinite(retryFloorPerSecond))) {
            throw new IllegalArgumentException("retryFloorPerSecond: " + retryFloorPerSecond + " (expected: >= 0.0, finite)");
        }
        Objects.requireNonNull(budgetWindow, "budgetWindow");
        if (budgetWindow.compareTo(MIN_BUDGET_WINDOW) < 0 || budgetWindow.compareTo(MAX_BUDGET_WINDOW) > 0) {
            throw new IllegalArgumentException("budgetWindow: " + Durations.format(budgetWindow)
                    + " (expected: >= 1s and <= 60s)");
        }
        if (tiedDelay != null) {
            requireAtLeast("tiedDelay", tiedDelay, Duration.ZERO);
        }
        requireAtLeast("tiedMaxDelay", tiedMaxDelay, Duration.ZERO);
    }

    /**
     * Hedged by default (a query may say {@code off} or {@code tied}): a backup after the p95 of the
     * last 10 s of its class's sub-request latency, clamped to [1 ms, 100 ms], trusted from 200
     * samples; at most 10% extra sub-requests over 10 s plus 10 a second, and retries after failures
     * another 100 a second beyond that; tied copies 2x the round trip apart, at most 1 ms.
     *
     * <p>Why these numbers. <b>Hedged</b>: a budgeted backup costs about 5% more leaf requests and is
     * what keeps one paused or slow leaf from owning the tail; off by default, a new user measured
     * p99.9 at the pause length. <b>p95 with a 10% budget</b>: hedging at the p-th percentile sends a backup
     * for about (100 - p)% of sub-requests (measured: 3% extra with no fault, 4% with a leaf paused
     * 150 ms a second), so the budget is twice what hedging spends in health. It was 5% at first,
     * equal to the hedge rate, and that left nothing for a real fault: with 1% of sub-requests
     * delayed 1 s, the backups those needed were refused, each delayed copy held its leaf's worker
     * until its search gave up, the leaves' queues filled and the cluster collapsed (p50 974 ms, 16%
     * errors); at 10% the same run had p99 19 ms, no error, and 3% extra. The budget bounds a storm;
     * it should not be what a single slow leaf runs into. <b>Max 100 ms</b>: sub-requests here take a few
     * milliseconds and a query should finish in 20 ms, so a delay that high is reached only when a
     * window has few samples (a cold root) or the whole cluster is slow; it is late enough that a
     * healthy cluster is not hedged on no evidence, early enough that a sub-request stuck behind a
     * 150 ms pause or a 1 s delay is rescued, and a tenth of the 1 s default timeout, leaving the
     * backup time to answer. When the whole cluster is slow, hedging more would only add load, and
     * the budget stops it. <b>Min 1 ms</b>: a sub-request takes 0.5 to 3 ms, so below a millisecond
     * a backup would chase answers still on the wire and hedging would degrade into sending
     * everything twice, which is what tied requests (with cancellation) are for. <b>200 samples</b>:
     * enough for the p95 to rest on ten observations above it. <b>10 a second</b>: a root serving a
     * trickle still gets backups when one leaf stalls. <b>Retry floor 100 a second</b>: a leaf crash
     * fails every sub-request it held at once (a few dozen at a few thousand queries a second), and
     * their retries must not be refused because hedging spent the budget; a thousand over the
     * window is far more than one crash needs, and still bounds a retry storm.
     */
    public static HedgeSettings defaults() {
        return new HedgeSettings(HedgeMode.HEDGED, 95.0, Duration.ofSeconds(10), Duration.ofMillis(1),
                Duration.ofMillis(100), 200, null, 0.10, 10.0, 100.0, Duration.ofSeconds(10), null, Duration.ofMillis(1));
    }

    /** True when the hedge delay is fixed rather than learnt from the latency windows. */
    public boolean isAdaptive() {
        return fixedDelay == null;
    }

    public HedgeSettings withDefaultMode(HedgeMode mode) {
        return new HedgeSettings(mode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withPercentile(double value) {
        return new HedgeSettings(defaultMode, value, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withWindow(Duration value) {
        return new HedgeSettings(defaultMode, percentile, value, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    /** Sets both bounds at once, so a command line may raise the minimum above the old maximum. */
    public HedgeSettings withDelayBounds(Duration min, Duration max) {
        return new HedgeSettings(defaultMode, percentile, window, min, max, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withMinDelay(Duration value) {
        return withDelayBounds(value, maxDelay);
    }

    public HedgeSettings withMaxDelay(Duration value) {
        return withDelayBounds(minDelay, value);
    }

    public HedgeSettings withMinSamples(int value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, value, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    /** A fixed hedge delay; {@code null} returns to the adaptive one. */
    public HedgeSettings withFixedDelay(Duration value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, value,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withBudgetRatio(double value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                value, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withBudgetMinPerSecond(double value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, value, retryFloorPerSecond, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withRetryFloorPerSecond(double value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, value, budgetWindow, tiedDelay, tiedMaxDelay);
    }

    public HedgeSettings withBudgetWindow(Duration value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, value, tiedDelay, tiedMaxDelay);
    }

    /** A fixed delay before a tied request's second copy; {@code null} derives it from the round trip. */
    public HedgeSettings withTiedDelay(Duration value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, value, tiedMaxDelay);
    }

    public HedgeSettings withTiedMaxDelay(Duration value) {
        return new HedgeSettings(defaultMode, percentile, window, minDelay, maxDelay, minSamples, fixedDelay,
                budgetRatio, budgetMinPerSecond, retryFloorPerSecond, budgetWindow, tiedDelay, value);
    }

    private static void requireAtLeast(String name, Duration value, Duration least) {
        Objects.requireNonNull(value, name);
        if (value.compareTo(least) < 0) {
            throw new IllegalArgumentException(name + ": " + Durations.format(value)
                    + " (expected: >= " + (least.isZero() ? "0" : Durations.format(least)) + ")");
        }
    }
}
