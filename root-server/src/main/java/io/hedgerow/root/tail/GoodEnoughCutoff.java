package io.hedgerow.root.tail;

import io.hedgerow.common.time.Ticker;
import java.util.Objects;

/**
 * When the root may stop waiting for the last partitions and return a good-enough, tainted result:
 * once the cutoff has passed and the answered partitions hold at least the minimum coverage of the
 * documents. The cutoff is by default 1.5 times the p99 of the last 10 s of query latency (the
 * query phase, from receipt until the root stopped waiting), clamped to [10 ms, 1 s], and the
 * maximum while there are too few samples; or fixed ({@link TailSettings#cutoff}).
 *
 * <p>Every query that produced a result is recorded, those cut off at the cutoff included, and that
 * is what keeps tainted results rare. A query cut off is recorded at the cutoff it was cut at; if
 * more than 1% of queries are cut off (or run past the cutoff waiting for coverage), the p99 is the
 * cutoff itself, and the next cutoff is 1.5 times that: the cutoff rises until fewer than about 1%
 * of queries reach it, and falls back when the stragglers go. Recording only complete queries would
 * do the opposite: the stragglers cut off would leave the window, the p99 would fall to that of the
 * unaffected queries, and the cutoff with it, tainting ever more (a benchmark with a stalled leaf
 * showed exactly that: a 12 ms cutoff and 15% tainted). The trade-off knob is the percentile times
 * the factor: a higher cutoff taints fewer results and waits longer for a straggler; a lower one
 * answers sooner and taints more. {@code minCoverage} bounds how much a result may miss.
 *
 * <p>The caller takes the cutoff once when a query starts ({@link #cutoffNanos}), schedules a check
 * at that time (an answer may not come to trigger one), and decides with {@link #stopWaiting(double,
 * double, long, long)} against that same cutoff, so the timer and the decision agree. At the
 * deadline the query ends whatever its coverage; that is the caller's timer, not this policy.
 *
 * <p><b>Assumptions and guarantees.</b> As for {@link ScaledPercentile}: any number of threads;
 * recording is wait-free but for bucket rotation; the cutoff is cached and recomputed at most every
 * {@value ScaledPercentile#REFRESH_MILLIS} ms. The decision methods are pure. Time comes only from
 * the injected {@link Ticker}.
 */
public final class GoodEnoughCutoff {
    /**
     * Slack when comparing a document fraction with a minimum coverage: the fraction is a sum of
     * per-partition fractions, so 16 sixteenths may add up to a hair under 1.0.
     */
    public static final double COVERAGE_EPSILON = 1e-9;

    private final ScaledPercentile limit;

    public GoodEnoughCutoff(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        this.limit = new ScaledPercentile(settings.cutoff(), settings.window(), settings.minSamples(), ticker);
    }

    /**
     * Records how long one query's query phase took, from receipt until the root stopped waiting:
     * every partition answered, or the cutoff or the deadline ended it with what had answered.
     */
    public void record(long latencyNanos) {
        limit.record(latencyNanos);
    }

    /** The cutoff now, in nanoseconds since a query started. */
    public long cutoffNanos() {
        return limit.nanos();
    }

    /** The cutoff now and where it came from. */
    public ScaledPercentile.Estimate estimate() {
        return limit.estimate();
    }

    /** {@link #stopWaiting(double, double, long, long)} against the cutoff now. */
    public boolean stopWaiting(double answeredDocsFraction, double minCoverage, long elapsedNanos) {
        return stopWaiting(answeredDocsFraction, minCoverage, elapsedNanos, cutoffNanos());
    }

    /**
     * Whether a query still waiting for partitions may end now with what has answered.
     *
     * @param answeredDocsFraction fraction of the documents the answered partitions hold, 0..1
     * @param minCoverage          the least fraction acceptable, (0, 1]
     * @param elapsedNanos         time since the query started
     * @param cutoffNanos          the cutoff taken when the query started
     * @return true when the cutoff has passed and the coverage is enough
     */
    public static boolean stopWaiting(double answeredDocsFraction, double minCoverage, long elapsedNanos,
            long cutoffNanos) {
        return elapsedNanos >= cutoffNanos && covers(answeredDocsFraction, minCoverage);
    }

    /** True when {@code docsFraction} reaches {@code minCoverage}, up to {@link #COVERAGE_EPSILON}. */
    public static boolean covers(double docsFraction, double minCoverage) {
        return docsFraction + COVERAGE_EPSILON >= minCoverage;
    }

    /**
     * The most partitions that may be missing for a result to be returned at the cutoff,
     * when partitions are of equal size: {@code floor(partitions x (1 - minCoverage))}. For the
     * documentation and the benchmark's expectations (16 partitions at 0.95: none; at 0.9: one).
     */
    public static int maxMissingPartitions(int partitions, double minCoverage) {
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 0)");
        }
        TailSettings.requireMinCoverage(minCoverage);
        int missing = 0;
        while (missing < partitions && covers((partitions - missing - 1) / (double) partitions, minCoverage)) {
            missing++;
        }
        return missing;
    }
}
