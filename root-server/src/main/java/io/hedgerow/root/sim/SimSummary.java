package io.hedgerow.root.sim;

import io.hedgerow.root.placement.PlacementReport;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one simulation measured, over the searches after the warm-up.
 *
 * @param searches       searches measured (the warm-up's are not)
 * @param rate           searches a second that arrived
 * @param slowFraction   share of the measured searches slower than {@code slow-threshold}
 * @param extraRequests  sub-requests sent beyond one per partition, per needed one (0.05: 5% more)
 * @param tainted        share of the measured searches answered with less than full coverage
 * @param failed         share that failed as a whole
 * @param leafUtilization the leaves' workers' busy share over the run, wasted work included
 * @param subRequestP50Ms one sub-request's round trip at the root (OK answers of measured searches):
 *                       Table 1's "one random leaf request finishes"
 * @param finish95P99Ms  the p99 of the time until 95% of a search's partitions answered (Table 1's
 *                       "95% of all leaf requests finish"; the search's own latency is the 100% row)
 * @param events         events the simulator ran
 * @param wallNanos      real time the run took
 * @param fullReplicationSeconds simulated time from a leaf's crash until every partition had its
 *                       replicas again (re-replication); NaN when that did not happen
 * @param cpuBusyCores   with shared cores: how many were busy on average over the run (the
 *                       machine's load, to set against a measured run's); NaN without them
 * @param fetchesPerSearch fetches the fetch phase sent per measured search ({@code hits}), backups
 *                       and retries included; 0 without hits
 * @param hotCopies      extra copies the placement started for hot partitions (selective replication)
 * @param rebalanceMoves copies the placement's rebalancer moved
 * @param shapes         under a structured {@code mix}: each shape's measured searches and latency,
 *                       by its name ({@code plain}, {@code faceted}...), in the shapes' order; empty without
 */
public record SimSummary(
        Map<String, String> options,
        long searches,
        double rate,
        double p50Ms,
        double p99Ms,
        double p999Ms,
        double maxMs,
        double meanMs,
        double slowFraction,
        double extraRequests,
        double tainted,
        double failed,
        long refused,
        double leafUtilization,
        double subRequestP50Ms,
        double subRequestP99Ms,
        double finish95P50Ms,
        double finish95P99Ms,
        long subRequestsSent,
        long twinBothRan,
        long twinDroppedQueued,
        long busyAnswers,
        long expiredAnswers,
        long events,
        double simulatedSeconds,
        long wallNanos,
        Histogram histogram,
        double fullReplicationSeconds,
        double cpuBusyCores,
        double fetchesPerSearch,
        long hotCopies,
        long rebalanceMoves,
        Map<String, ShapeLatency> shapes) {

    /**
     * The searches of one shape of a structured mix, measured as the whole run's are.
     *
     * @param searches how many were measured
     * @param share    their share of the measured searches
     */
    public record ShapeLatency(long searches, double share, double p50Ms, double p99Ms, double p999Ms, double meanMs) {
        Map<String, Object> toJson() {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("searches", searches);
            json.put("share", round(share));
            json.put("p50_ms", round(p50Ms));
            json.put("p99_ms", round(p99Ms));
            json.put("p999_ms", round(p999Ms));
            json.put("mean_ms", round(meanMs));
            return json;
        }
    }

    public SimSummary {
        shapes = Collections.unmodifiableMap(new LinkedHashMap<>(shapes));
    }

    static SimSummary of(SimConfig config, double rate, Histogram latencies, Histogram subRequests,
            Histogram finish95, long measured, long slow, long tainted,
            long failed, long sent, long refused, SimCounters counters, long events, long endNanos, long wallNanos,
            PlacementReport placement, Histogram[] shapeLatencies) {
        Map<String, ShapeLatency> shapes = new LinkedHashMap<>();
        for (int i = 0; i < shapeLatencies.length; i++) {
            Histogram shape = shapeLatencies[i];
            shapes.put(SimMix.Shape.values()[i].label(), new ShapeLatency(shape.getTotalCount(),
                    share(shape.getTotalCount(), measured), ms(shape, 50), ms(shape, 99), ms(shape, 99.9),
                    shape.getTotalCount() == 0 ? 0 : shape.getMean() / 1e3));
        }
        long fullReplicationNanos = placement.lastFullReplicationNanos();
        double needed = (double) measured * config.partitions;
        double utilization = endNanos <= 0 ? 0 : counters.workNanos / ((double) endNanos * config.leaves * config.workers);
        return new SimSummary(config.options(), measured, rate, ms(latencies, 50), ms(latencies, 99),
                ms(latencies, 99.9), latencies.getMaxValue() / 1e3, latencies.getMean() / 1e3,
                share(slow, measured), needed == 0 ? 0 : (sent - needed) / needed, share(tainted, measured),
                share(failed, measured), refused, utilization, ms(subRequests, 50), ms(subRequests, 99), ms(finish95, 50),
                ms(finish95, 99), sent, counters.twinBothRan, counters.twinDroppedQueued,
                counters.busyAnswers, counters.expiredAnswers, events, endNanos / 1e9, wallNanos, latencies,
                fullReplicationNanos < 0 ? Double.NaN : fullReplicationNanos / 1e9,
                endNanos <= 0 ? Double.NaN : counters.cpuCoreNanos / endNanos,
                measured == 0 ? 0 : (double) counters.fetchesSent / measured, placement.hotCopies(),
                placement.rebalanceMoves(), shapes);
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getValueAtPercentile(percentile) / 1e3;
    }

    private static double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    /** Events the simulator ran per second of real time. */
    public double eventsPerSecond() {
        return wallNanos == 0 ? 0 : events / (wallNanos / 1e9);
    }

    /** Sub-requests simulated per minute of real time. */
    public double subRequestsPerMinute() {
        return wallNanos == 0 ? 0 : subRequestsSent / (wallNanos / 60e9);
    }

    /** The summary the {@code --json} output carries, in a stable order. */
    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("options", options);
        json.put("searches", searches);
        json.put("rate_per_s", round(rate));
        json.put("p50_ms", round(p50Ms));
        json.put("p99_ms", round(p99Ms));
        json.put("p999_ms", round(p999Ms));
        json.put("max_ms", round(maxMs));
        json.put("mean_ms", round(meanMs));
        json.put("slow_fraction", round(slowFraction));
        json.put("extra_requests", round(extraRequests));
        json.put("tainted", round(tainted));
        json.put("failed", round(failed));
        json.put("leaf_utilization", round(leafUtilization));
        json.put("subrequest_p50_ms", round(subRequestP50Ms));
        json.put("subrequest_p99_ms", round(subRequestP99Ms));
        json.put("finish95_p50_ms", round(finish95P50Ms));
        json.put("finish95_p99_ms", round(finish95P99Ms));
        json.put("twin_both_ran", twinBothRan);
        json.put("twin_dropped_queued", twinDroppedQueued);
        json.put("busy_answers", busyAnswers);
        json.put("expired_answers", expiredAnswers);
        json.put("events", events);
        json.put("full_replication_s", Double.isNaN(fullReplicationSeconds) ? null : round(fullReplicationSeconds));
        json.put("cpu_busy_cores", Double.isNaN(cpuBusyCores) ? null : round(cpuBusyCores));
        json.put("fetches_per_search", round(fetchesPerSearch));
        json.put("hot_copies", hotCopies);
        json.put("rebalance_moves", rebalanceMoves);
        if (!shapes.isEmpty()) { // only under a structured mix: other runs' summaries read as before
            Map<String, Object> byShape = new LinkedHashMap<>();
            shapes.forEach((name, shape) -> byShape.put(name, shape.toJson()));
            json.put("shapes", byShape);
        }
        json.put("simulated_s", round(simulatedSeconds));
        json.put("wall_s", round(wallNanos / 1e9));
        json.put("events_per_s", Math.round(eventsPerSecond()));
        json.put("subrequests_per_min", Math.round(subRequestsPerMinute()));
        return json;
    }

    private static double round(double value) {
        return Math.round(value * 10_000) / 10_000.0;
    }

    static String format(double value) {
        return String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
    }
}
