package io.hedgerow.root.tail;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.hedge.RequestClass;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

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
 * <p><b>One window per request class and per minimum coverage.</b> An expensive query shape takes
 * many times what a two-term query takes, and a query that may end at 50% coverage is cut far
 * more often than one that needs 95%: one shared window would let each population set the other's
 * cutoff (cheap queries would be cut at the expensive ones' p99, or expensive ones at the cheap
 * ones'). The minimum coverage is kept in steps of 5% (0.93 shares the window of 0.95), so a
 * root holds at most 2 x 20 windows, and in practice one or two per class; a minimum coverage of
 * 1 never ends early and has no window.
 *
 * <p>The caller takes the cutoff once when a query starts ({@link #cutoffNanos}), schedules a check
 * at that time (an answer may not come to trigger one), and decides with {@link #stopWaiting(double,
 * double, long, long)} against that same cutoff, so the timer and the decision agree. At the
 * deadline the query ends whatever its coverage; that is the caller's timer, not this policy.
 *
 * <p><b>Assumptions and guarantees.</b> As for {@link ScaledPercentile}: any number of threads;
 * recording is wait-free but for bucket rotation; the cutoff is cached and recomputed at most every
 * {@value ScaledPercentile#REFRESH_MILLIS} ms. A window is made the first time its class and
 * minimum coverage are seen (a {@link ConcurrentHashMap#computeIfAbsent}; later lookups are one
 * map read). The decision methods are pure. Time comes only from
 * the injected {@link Ticker}.
 */
public final class GoodEnoughCutoff {
    /**
     * Slack when comparing a document fraction with a minimum coverage: the fraction is a sum of
     * per-partition fractions, so 16 sixteenths may add up to a hair under 1.0.
     */
    public static final double COVERAGE_EPSILON = 1e-9;
    /** Minimum coverages share a window within steps of this many percent. */
    public static final int COVERAGE_STEP_PERCENT = 5;

    private final TailSettings settings;
    private final Ticker ticker;
    private final ConcurrentHashMap<Integer, ScaledPercentile> windows = new ConcurrentHashMap<>();

    public GoodEnoughCutoff(TailSettings settings, Ticker ticker) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /**
     * Records how long one query's query phase took, from receipt until the root stopped waiting:
     * every partition answered, or the cutoff or the deadline ended it with what had answered.
     * Queries with a minimum coverage of 1 are not recorded: they never end at a cutoff.
     */
    public void record(RequestClass requestClass, double minCoverage, long latencyNanos) {
        ScaledPercentile window = window(requestClass, minCoverage);
        if (window != null) {
            window.record(latencyNanos);
        }
    }

    /**
     * The cutoff now for a query of this class and minimum coverage, in nanoseconds since it
     * started; {@link Long#MAX_VALUE} for a minimum coverage of 1 (never cut).
     */
    public long cutoffNanos(RequestClass requestClass, double minCoverage) {
        ScaledPercentile window = window(requestClass, minCoverage);
        return window == null ? Long.MAX_VALUE : window.nanos();
    }

    /** The cutoff now and where it came from; null for a minimum coverage of 1. */
    public ScaledPercentile.Estimate estimate(RequestClass requestClass, double minCoverage) {
        ScaledPercentile window = window(requestClass, minCoverage);
        return window == null ? null : window.estimate();
    }

    /** The cutoff of cheap queries at the root's default minimum coverage, for the metrics gauge. */
    public long cutoffNanos() {
        return cutoffNanos(RequestClass.CHEAP, settings.minCoverage() < 1 ? settings.minCoverage() : 0.95);
    }

    /** The step of minimum coverage a window is kept for: 1..100 percent, rounded up to a step. */
    static int coverageStep(double minCoverage) {
        TailSettings.requireMinCoverage(minCoverage);
        long percent = Math.round(minCoverage * 100);
        return (int) Math.min(100, (percent + COVERAGE_STEP_PERCENT - 1) / COVERAGE_STEP_PERCENT * COVERAGE_STEP_PERCENT);
    }

    private ScaledPercentile window(RequestClass requestClass, double minCoverage) {
        Objects.requireNonNull(requestClass, "requestClass");
        if (minCoverage >= 1) {
            return null;
        }
        int key = requestClass.ordinal() * 1000 + coverageStep(minCoverage);
        ScaledPercentile window = windows.get(key);
        return window != null ? window : windows.computeIfAbsent(key,
                k -> new ScaledPercentile(settings.cutoff(), settings.window(), settings.minSamples(), ticker));
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
