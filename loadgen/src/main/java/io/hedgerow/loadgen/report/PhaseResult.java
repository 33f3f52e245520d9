package io.hedgerow.loadgen.report;

import io.hedgerow.loadgen.scenario.PhaseFaults;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one phase of a load run measured.
 *
 * <p>Its latency figures ({@link #percentileMillis} and the like) are those of the answers,
 * complete and tainted: what users got back. Refusals and other errors have their own histograms
 * ({@link #refusedMillis}), both counted in the error rate, so fast refusals never make a tail look
 * good; a phase with more than
 * {@link #ERROR_RATE_LIMIT} errors is flagged. A phase whose generator sent late (p99 of its lag
 * over {@link #LAG_LIMIT_MILLIS}) measured the generator and is marked invalid. A percentile is
 * supported when at least {@link #SAMPLES_BEYOND} answers lie beyond it (p99.9 needs 50,000).
 *
 * @param name            phase name, e.g. "steady" or "rate-2000"
 * @param mode            how requests were started: "open/constant", "open/poisson" or "closed"
 * @param targetRate      requests per second asked for (open loop); for closed loop, 0
 * @param durationNanos   how long the phase ran
 * @param sent            requests written to a connection
 * @param dropped         requests never sent because the in-flight cap was reached; in no histogram,
 *                        and a report must show them
 * @param latencies       latency in microseconds by outcome, counted from each request's intended
 *                        start in open loop (corrected for coordinated omission), and the
 *                        generator's lag
 * @param taintedCoverage mean {@code coverage.docs_fraction} (0..1) of the tainted answers; null
 *                        when there were none (or they did not say)
 * @param errorReasons    why requests failed ("HTTP 503 overloaded", "connection closed by the server"),
 *                        with counts; the counts add up to {@link #errors()}, refusals included
 * @param root            what the root's counters said about the phase
 * @param notes           what went wrong with the measurement itself (a root that could not be read,
 *                        other clients' traffic); empty when nothing did
 * @param faults          what the phase's faults did, every action with its time; {@link PhaseFaults#NONE}
 *                        for a phase without faults. A phase whose faults did not all apply did not
 *                        measure what its name says, and is not {@link #valid()}
 */
public record PhaseResult(
        String name,
        String mode,
        double targetRate,
        long durationNanos,
        long sent,
        long dropped,
        Latencies latencies,
        Double taintedCoverage,
        Map<String, Long> errorReasons,
        RootView root,
        List<String> notes,
        PhaseFaults faults) {

    /** A phase with a higher error rate is flagged. */
    public static final double ERROR_RATE_LIMIT = 0.01;
    /** A phase whose generator lag p99 is higher measured the generator: invalid. */
    public static final double LAG_LIMIT_MILLIS = 1.0;
    /** A percentile is supported when at least this many answers lie beyond it. */
    public static final int SAMPLES_BEYOND = 50;

    public PhaseResult {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(latencies, "latencies");
        if (taintedCoverage != null && !(taintedCoverage >= 0 && taintedCoverage <= 1)) {
            throw new IllegalArgumentException("taintedCoverage: " + taintedCoverage + " (expected: 0..1, or null)");
        }
        errorReasons = errorReasons == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(errorReasons));
        root = root == null ? RootView.UNKNOWN : root;
        notes = notes == null ? List.of() : List.copyOf(notes);
        faults = faults == null ? PhaseFaults.NONE : faults;
    }

    /** A phase without faults. */
    public PhaseResult(String name, String mode, double targetRate, long durationNanos, long sent, long dropped,
            Latencies latencies, Double taintedCoverage, Map<String, Long> errorReasons, RootView root, List<String> notes) {
        this(name, mode, targetRate, durationNanos, sent, dropped, latencies, taintedCoverage, errorReasons, root, notes,
                PhaseFaults.NONE);
    }

    /** The same phase with what the root's counters said about it, and notes on reading them. */
    public PhaseResult withRoot(RootView view, List<String> moreNotes) {
        return new PhaseResult(name, mode, targetRate, durationNanos, sent, dropped, latencies, taintedCoverage,
                errorReasons, view, concat(notes, moreNotes), faults);
    }

    /** The same phase with what its faults did. */
    public PhaseResult withFaults(PhaseFaults applied) {
        return new PhaseResult(name, mode, targetRate, durationNanos, sent, dropped, latencies, taintedCoverage,
                errorReasons, root, notes, applied);
    }

    /** The same phase with more notes. */
    public PhaseResult withNotes(List<String> moreNotes) {
        return new PhaseResult(name, mode, targetRate, durationNanos, sent, dropped, latencies, taintedCoverage,
                errorReasons, root, concat(notes, moreNotes), faults);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    public long complete() {
        return latencies.complete().getTotalCount();
    }

    public long tainted() {
        return latencies.tainted().getTotalCount();
    }

    /** Requests that got no answer: refused, or failed otherwise (a refusal is a failure). */
    public long errors() {
        return refused() + otherErrors();
    }

    /** Requests the server refused without running them ({@link Latencies#refused}). */
    public long refused() {
        return latencies.refused().getTotalCount();
    }

    /** Requests that failed otherwise: an error status, or no answer at all. */
    public long otherErrors() {
        return latencies.errors().getTotalCount();
    }

    /** Requests that ended: answered or failed. */
    public long count() {
        return complete() + tainted() + errors();
    }

    /** The answers' latency, complete and tainted, in microseconds: the table's percentiles. */
    public Histogram latency() {
        return latencies.answered();
    }

    /** Requests that ended, per second. */
    public double achievedRate() {
        return perSecond(count());
    }

    /** Complete answers per second: the work that was fully done. */
    public double goodputPerSecond() {
        return perSecond(complete());
    }

    private double perSecond(long n) {
        return durationNanos == 0 ? 0 : n * 1e9 / durationNanos;
    }

    public double errorRate() {
        return count() == 0 ? 0 : (double) errors() / count();
    }

    /** More than {@link #ERROR_RATE_LIMIT} of the requests failed. */
    public boolean errorFlagged() {
        return errorRate() > ERROR_RATE_LIMIT;
    }

    public double taintedPct() {
        return count() == 0 ? 0 : 100.0 * tainted() / count();
    }

    /** Answers' latency at a percentile (0..100), in milliseconds. */
    public double percentileMillis(double percentile) {
        return latency().getValueAtPercentile(percentile) / 1000.0;
    }

    /** Whether enough answers lie beyond the percentile for it to mean something. */
    public boolean supports(double percentile) {
        return latency().getTotalCount() * (1 - percentile / 100) >= SAMPLES_BEYOND - 1e-9;
    }

    /** Mean latency of the answers in milliseconds, over the same samples as the percentiles. */
    public double meanMillis() {
        return latency().getMean() / 1000.0;
    }

    /** Standard deviation of the answers' latency in milliseconds. */
    public double stdDevMillis() {
        return latency().getStdDeviation() / 1000.0;
    }

    public double maxMillis() {
        return latency().getMaxValue() / 1000.0;
    }

    /** How long refusals took to come back at a percentile (0..100), in milliseconds; null when none came. */
    public Double refusedMillis(double percentile) {
        return refused() == 0 ? null : latencies.refused().getValueAtPercentile(percentile) / 1000.0;
    }

    /** The generator's lateness at a percentile, in milliseconds; 0 when nothing was sent. */
    public double lagMillis(double percentile) {
        return latencies.lag().getValueAtPercentile(percentile) / 1000.0;
    }

    /** The generator kept its schedule: lag p99 at most {@link #LAG_LIMIT_MILLIS}. */
    public boolean lagValid() {
        return lagMillis(99) <= LAG_LIMIT_MILLIS;
    }

    /**
     * A measurement of the server as its name says: the generator kept its schedule, its faults all
     * applied, and nothing went wrong in measuring.
     */
    public boolean valid() {
        return lagValid() && faults.clean() && notes.isEmpty();
    }

    /**
     * Everything a reader must know before trusting the phase's numbers, one line each: an invalid
     * lag, an error rate over the limit, faults that did not apply, the notes.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!lagValid()) {
            problems.add(String.format(Locale.ROOT, "invalid: the generator sent late (lag p99 %.2f ms > %.0f ms);"
                    + " it measured the generator, not the server", lagMillis(99), LAG_LIMIT_MILLIS));
        }
        if (errorFlagged()) {
            problems.add(String.format(Locale.ROOT, "errors: %.2f%% of requests failed (over %.0f%%)", errorRate() * 100,
                    ERROR_RATE_LIMIT * 100));
        }
        if (!faults.clean()) {
            problems.add("faults did not all apply: " + faults.summary());
        }
        problems.addAll(notes);
        return problems;
    }
}
