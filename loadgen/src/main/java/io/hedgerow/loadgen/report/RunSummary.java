package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.hedgerow.loadgen.scenario.FaultEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The {@code summary.json} of a results folder: what a run measured, for people and scripts, and
 * with the histogram log beside it, everything needed to load the run back for a comparison.
 * Derived numbers (rates, percentages, percentiles, flags) are written for readers; loading uses
 * the counts, the notes and the histograms.
 *
 * @param format    {@value #FORMAT}, so a reader knows the folder is a load run of this shape
 * @param label     the run's label
 * @param startedAt ISO-8601 instant
 * @param target    the URL loaded
 * @param settings  the settings of the run
 * @param capacity  what a capacity search found; null for other runs
 * @param phases    in run order
 */
record RunSummary(
        @JsonProperty(value = "format", required = true) String format,
        @JsonProperty(value = "label", required = true) String label,
        @JsonProperty(value = "started_at", required = true) String startedAt,
        @JsonProperty("target") String target,
        @JsonProperty("settings") Map<String, String> settings,
        @JsonProperty("capacity") Capacity capacity,
        @JsonProperty(value = "phases", required = true) List<Phase> phases) {

    /** Version 2 keeps answers, tainted answers and errors apart; version 1 had one latency for all. */
    static final String FORMAT = "hedgerow-loadgen-run/2";

    /**
     * One phase. {@code latency_ms} has a block per outcome: {@code answered} (complete and tainted:
     * the table's latency), {@code ok} (complete), {@code tainted}, {@code error} (every request
     * without an answer, as {@code errors} counts them), and within the errors {@code refused} (503
     * {@code overloaded} or {@code shutting_down}, counted by {@code refused}) and
     * {@code other_error} (the rest, counted by {@code other_errors}). Summaries written before
     * refusals were told apart lack the last two and the counts; readers take none refused.
     *
     * @param notes         what went wrong in measuring (loaded back)
     * @param faults        every fault action of the phase, applied, failed or undone, with its time (loaded back)
     * @param faultsNeverApplied faults that never took effect, with why (loaded back)
     * @param problems      the notes and the flags (lag, errors): everything to know before trusting the numbers
     * @param histogramFile the phase's histograms (microseconds), one tagged interval each, an HdrHistogram log
     * @param percentilesFile the answers' percentile distribution in milliseconds (.hgrm)
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Phase(
            @JsonProperty(value = "name", required = true) String name,
            @JsonProperty(value = "mode", required = true) String mode,
            @JsonProperty("target_rate") double targetRate,
            @JsonProperty("duration_nanos") long durationNanos,
            @JsonProperty("duration_s") double durationSeconds,
            @JsonProperty("sent") long sent,
            @JsonProperty("count") long count,
            @JsonProperty("complete") long complete,
            @JsonProperty("tainted") long tainted,
            @JsonProperty("errors") long errors,
            @JsonProperty("refused") long refused,
            @JsonProperty("other_errors") long otherErrors,
            @JsonProperty("dropped") long dropped,
            @JsonProperty("achieved_rate") double achievedRate,
            @JsonProperty("goodput_per_s") double goodputPerSecond,
            @JsonProperty("error_rate") double errorRate,
            @JsonProperty("error_flagged") boolean errorFlagged,
            @JsonProperty("tainted_pct") double taintedPct,
            @JsonProperty("tainted_coverage") Double taintedCoverage,
            @JsonProperty("valid") boolean valid,
            @JsonProperty("problems") List<String> problems,
            @JsonProperty("notes") List<String> notes,
            @JsonProperty("latency_ms") Blocks latencyMillis,
            @JsonProperty("generator_lag") Latency generatorLag,
            @JsonProperty("root") Root root,
            @JsonProperty("error_reasons") Map<String, Long> errorReasons,
            @JsonProperty("faults") List<FaultEvent> faults,
            @JsonProperty("faults_never_applied") List<String> faultsNeverApplied,
            @JsonProperty("faults_clean") boolean faultsClean,
            @JsonProperty("faults_summary") String faultsSummary,
            @JsonProperty(value = "histogram_file", required = true) String histogramFile,
            @JsonProperty("percentiles_file") String percentilesFile) {

        static Phase of(PhaseResult phase, String histogramFile, String percentilesFile) {
            Latencies latencies = phase.latencies();
            return new Phase(phase.name(), phase.mode(), phase.targetRate(), phase.durationNanos(),
                    phase.durationNanos() / 1e9, phase.sent(), phase.count(), phase.complete(), phase.tainted(), phase.errors(),
                    phase.refused(), phase.otherErrors(), phase.dropped(), phase.achievedRate(), phase.goodputPerSecond(),
                    phase.errorRate(), phase.errorFlagged(), phase.taintedPct(), phase.taintedCoverage(), phase.valid(),
                    phase.problems(), phase.notes(),
                    new Blocks(Latency.of(latencies.answered()), Latency.of(latencies.complete()),
                            Latency.of(latencies.tainted()), Latency.of(latencies.failures()), Latency.of(latencies.refused()),
                            Latency.of(latencies.errors())),
                    Latency.of(latencies.lag()), Root.of(phase.root()), phase.errorReasons(), phase.faults().events(),
                    phase.faults().neverApplied(), phase.faults().clean(), phase.faults().summary(), histogramFile,
                    percentilesFile);
        }
    }

    /**
     * Latency blocks by outcome. In a phase's blocks {@code error} holds every failure and
     * {@code refused} and {@code other_error} split it; in the root's, {@code error} and
     * {@code other_error} are its errors, refusals apart ({@code refused}, as the root times them).
     */
    record Blocks(
            @JsonProperty("answered") Latency answered,
            @JsonProperty("ok") Latency ok,
            @JsonProperty("tainted") Latency tainted,
            @JsonProperty("error") Latency error,
            @JsonProperty("refused") Latency refused,
            @JsonProperty("other_error") Latency otherError) {
    }

    /**
     * What the root said about the phase; its latency blocks are null when the root does not
     * serve them.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Root(
            @JsonProperty("extra_leaf_requests_pct") Double extraLeafRequestsPct,
            @JsonProperty("tied_both_ran_pct") Double tiedBothRanPct,
            @JsonProperty("searches") Long searches,
            @JsonProperty("latency_ms") Blocks latencyMillis,
            @JsonProperty("refused_latency_ms") Latency refusedMillis,
            @JsonProperty("cpu_cores") Cpu cpuCores) {

        static Root of(RootView view) {
            RootView.Latency latency = view.latency();
            Blocks blocks = latency == null ? null : new Blocks(Latency.of(latency.answered()), Latency.of(latency.complete()),
                    Latency.of(latency.tainted()), Latency.of(latency.errors()), Latency.of(latency.refused()),
                    Latency.of(latency.errors()));
            return new Root(view.extraLeafRequestsPct(), view.tiedBothRanPct(), view.searches(), blocks,
                    latency == null ? null : Latency.of(latency.refused()), Cpu.of(view.cpu()));
        }
    }

    /**
     * Cores busy on average during the phase (null each when unknown): the machine, the generator,
     * the root, and the rest (on a local cluster, the leaves).
     */
    record Cpu(
            @JsonProperty("machine") Double machine,
            @JsonProperty("generator") Double generator,
            @JsonProperty("root") Double root,
            @JsonProperty("others") Double others) {

        static Cpu of(RootView.Cpu cpu) {
            return cpu == null ? null : new Cpu(cpu.machineCores(), cpu.generatorCores(), cpu.rootCores(), cpu.others());
        }
    }

    /**
     * Latency in milliseconds, all from the same samples; the percentiles are null when there were
     * none. {@code supports} lists the percentiles with at least {@value PhaseResult#SAMPLES_BEYOND}
     * samples beyond them; the others are indicative only.
     */
    record Latency(
            @JsonProperty("count") long count,
            @JsonProperty("p50") Double p50,
            @JsonProperty("p90") Double p90,
            @JsonProperty("p95") Double p95,
            @JsonProperty("p99") Double p99,
            @JsonProperty("p99_9") Double p999,
            @JsonProperty("p99_99") Double p9999,
            @JsonProperty("max") Double max,
            @JsonProperty("mean") Double mean,
            @JsonProperty("stddev") Double stddev,
            @JsonProperty("supports") List<String> supports) {

        private static final double[] PERCENTILES = {50, 90, 95, 99, 99.9, 99.99};
        private static final String[] NAMES = {"p50", "p90", "p95", "p99", "p99_9", "p99_99"};

        static Latency of(Histogram micros) {
            long count = micros.getTotalCount();
            if (count == 0) {
                return new Latency(0, null, null, null, null, null, null, null, null, null, List.of());
            }
            List<String> supported = new ArrayList<>();
            for (int i = 0; i < PERCENTILES.length; i++) {
                if (count * (1 - PERCENTILES[i] / 100) >= PhaseResult.SAMPLES_BEYOND - 1e-9) {
                    supported.add(NAMES[i]);
                }
            }
            return new Latency(count, ms(micros, 50), ms(micros, 90), ms(micros, 95), ms(micros, 99), ms(micros, 99.9),
                    ms(micros, 99.99), micros.getMaxValue() / 1000.0, micros.getMean() / 1000.0,
                    micros.getStdDeviation() / 1000.0, supported);
        }

        private static double ms(Histogram micros, double percentile) {
            return micros.getValueAtPercentile(percentile) / 1000.0;
        }
    }
}
