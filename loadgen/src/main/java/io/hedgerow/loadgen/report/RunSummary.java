package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The {@code summary.json} of a results folder: what a run measured, for people and scripts, and
 * with the histogram files beside it, everything needed to load the run back for a comparison.
 * Derived numbers (rates, percentages, percentiles) are written for readers; loading uses the
 * counts and the histograms.
 *
 * @param format    {@value #FORMAT}, so a reader knows the folder is a load run
 * @param label     the run's label
 * @param startedAt ISO-8601 instant
 * @param target    the URL loaded
 * @param settings  the settings of the run
 * @param phases    in run order
 */
record RunSummary(
        @JsonProperty(value = "format", required = true) String format,
        @JsonProperty(value = "label", required = true) String label,
        @JsonProperty(value = "started_at", required = true) String startedAt,
        @JsonProperty("target") String target,
        @JsonProperty("settings") Map<String, String> settings,
        @JsonProperty(value = "phases", required = true) List<Phase> phases) {

    static final String FORMAT = "hedgerow-loadgen-run/1";

    /**
     * One phase.
     *
     * @param taintedCoverage mean document coverage of the tainted answers; null when none (or a run
     *                        written before the generator read it)
     * @param histogramFile   the phase's full latency histogram (microseconds), an HdrHistogram log
     * @param percentilesFile the phase's percentile distribution in milliseconds (.hgrm)
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Phase(
            @JsonProperty(value = "name", required = true) String name,
            @JsonProperty(value = "mode", required = true) String mode,
            @JsonProperty("target_rate") double targetRate,
            @JsonProperty("duration_nanos") long durationNanos,
            @JsonProperty("duration_s") double durationSeconds,
            @JsonProperty("count") long count,
            @JsonProperty("achieved_rate") double achievedRate,
            @JsonProperty("errors") long errors,
            @JsonProperty("error_rate") double errorRate,
            @JsonProperty("dropped") long dropped,
            @JsonProperty("tainted") long tainted,
            @JsonProperty("tainted_pct") double taintedPct,
            @JsonProperty("tainted_coverage") Double taintedCoverage,
            @JsonProperty("extra_leaf_requests_pct") Double extraLeafRequestsPct,
            @JsonProperty("tied_both_ran_pct") Double tiedBothRanPct,
            @JsonProperty("latency_ms") Latency latencyMillis,
            @JsonProperty("error_reasons") Map<String, Long> errorReasons,
            @JsonProperty(value = "histogram_file", required = true) String histogramFile,
            @JsonProperty("percentiles_file") String percentilesFile) {

        static Phase of(PhaseResult phase, String histogramFile, String percentilesFile) {
            return new Phase(phase.name(), phase.mode(), phase.targetRate(), phase.durationNanos(),
                    phase.durationNanos() / 1e9, phase.count(), phase.achievedRate(), phase.errors(), phase.errorRate(),
                    phase.dropped(), phase.tainted(), phase.taintedPct(), phase.taintedCoverage(), phase.extraLeafRequestsPct(),
                    phase.tiedBothRanPct(), Latency.of(phase), phase.errorReasons(), histogramFile, percentilesFile);
        }
    }

    /**
     * Latency in milliseconds, all from the same samples (counted from each request's intended
     * start in open loop); all null when nothing completed. {@code mean} is the table's "avg".
     */
    record Latency(
            @JsonProperty("p50") Double p50,
            @JsonProperty("p90") Double p90,
            @JsonProperty("p95") Double p95,
            @JsonProperty("p99") Double p99,
            @JsonProperty("p99_9") Double p999,
            @JsonProperty("p99_99") Double p9999,
            @JsonProperty("max") Double max,
            @JsonProperty("mean") Double mean,
            @JsonProperty("stddev") Double stddev) {

        static Latency of(PhaseResult phase) {
            if (phase.latency().getTotalCount() == 0) {
                return new Latency(null, null, null, null, null, null, null, null, null);
            }
            return new Latency(phase.percentileMillis(50), phase.percentileMillis(90), phase.percentileMillis(95),
                    phase.percentileMillis(99), phase.percentileMillis(99.9), phase.percentileMillis(99.99),
                    phase.maxMillis(), phase.meanMillis(), phase.stdDevMillis());
        }
    }
}
