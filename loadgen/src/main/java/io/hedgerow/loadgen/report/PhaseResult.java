package io.hedgerow.loadgen.report;

import java.util.Map;
import java.util.Objects;
import java.util.Collections;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one phase of a load run measured.
 *
 * @param name                 phase name, e.g. "steady" or "rate-2000"
 * @param mode                 how requests were started: "open/constant", "open/poisson" or "closed"
 * @param targetRate           requests per second asked for (open loop); for closed loop, 0
 * @param durationNanos        how long the phase ran
 * @param count                requests that completed (answered, with any status)
 * @param errors               completed requests that failed: non-200 status or a transport error
 * @param dropped              requests never sent because the in-flight cap was reached; they are
 *                             not in {@code latency}, and a report must show them
 * @param tainted              answered 200 with {@code "tainted": true}
 * @param taintedCoverage      mean {@code coverage.docs_fraction} (0..1) of the tainted answers; null
 *                             when there were none (or they did not say)
 * @param latency              latency in microseconds of every completed request, counted from its
 *                             intended start time in open loop (corrected for coordinated omission)
 * @param extraLeafRequestsPct leaf sub-requests beyond one per partition per query (retries,
 *                             backups, tied twins) as a percentage of primary sub-requests, read
 *                             from the root's metrics; null if unknown
 * @param tiedBothRanPct       of the tied pairs the root sent, the percentage where both copies ran
 *                             (wasted work), read from the root's metrics; null if no tied pairs
 * @param errorReasons         why requests failed ("HTTP 503", "connection closed by the server"),
 *                             with counts; the counts add up to {@code errors}
 */
public record PhaseResult(
        String name,
        String mode,
        double targetRate,
        long durationNanos,
        long count,
        long errors,
        long dropped,
        long tainted,
        Double taintedCoverage,
        Histogram latency,
        Double extraLeafRequestsPct,
        Double tiedBothRanPct,
        Map<String, Long> errorReasons) {

    public PhaseResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(latency, "latency");
        if (taintedCoverage != null && !(taintedCoverage >= 0 && taintedCoverage <= 1)) {
            throw new IllegalArgumentException("taintedCoverage: " + taintedCoverage + " (expected: 0..1, or null)");
        }
        errorReasons = errorReasons == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(errorReasons));
    }

    /** The same phase with what the root's counters said about it. */
    public PhaseResult withRootCounters(Double extraLeafPct, Double bothRanPct) {
        return new PhaseResult(name, mode, targetRate, durationNanos, count, errors, dropped, tainted, taintedCoverage,
                latency, extraLeafPct, bothRanPct, errorReasons);
    }

    /** Completed requests per second. */
    public double achievedRate() {
        return durationNanos == 0 ? 0 : count * 1e9 / durationNanos;
    }

    public double errorRate() {
        return count == 0 ? 0 : (double) errors / count;
    }

    public double taintedPct() {
        return count == 0 ? 0 : 100.0 * tainted / count;
    }

    /** Latency at a percentile (0..100), in milliseconds. */
    public double percentileMillis(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1000.0;
    }

    /** Mean latency in milliseconds, over the same (coordinated-omission corrected) samples as the percentiles. */
    public double meanMillis() {
        return latency.getMean() / 1000.0;
    }

    /** Standard deviation of the latency in milliseconds. */
    public double stdDevMillis() {
        return latency.getStdDeviation() / 1000.0;
    }

    public double maxMillis() {
        return latency.getMaxValue() / 1000.0;
    }
}
