package io.hedgerow.loadgen.report;

import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * A phase's latency histograms, in microseconds, one per outcome, and the generator's own
 * lateness. Kept apart because they mean different things: a fast refusal is not a fast answer,
 * a refusal answered at once is not a search that failed after its deadline, and a request the
 * generator sent late measured the generator.
 *
 * @param complete answers with every partition (HTTP 200, not tainted), from the intended start
 * @param tainted  answers with less than full coverage (HTTP 200, tainted), from the intended start
 * @param refused  refusals: the server turned the request away without running it (503
 *                 {@code overloaded} or {@code shutting_down}, see {@code Refusals}), from the
 *                 intended start
 * @param errors   any other status, or no answer at all, from the intended start
 * @param lag      for every request sent, from its intended start to its actual send
 * @param answered complete and tainted together: what users got back ({@link #of} adds them up)
 */
public record Latencies(Histogram complete, Histogram tainted, Histogram refused, Histogram errors, Histogram lag,
        Histogram answered) {
    /** Latency is recorded in microseconds, from 1 us to 60 s, to 3 significant digits. */
    public static final long HIGHEST_MICROS = 60_000_000L;

    public Latencies {
        Objects.requireNonNull(complete, "complete");
        Objects.requireNonNull(tainted, "tainted");
        Objects.requireNonNull(refused, "refused");
        Objects.requireNonNull(errors, "errors");
        Objects.requireNonNull(lag, "lag");
        Objects.requireNonNull(answered, "answered");
        if (answered.getTotalCount() != complete.getTotalCount() + tainted.getTotalCount()) {
            throw new IllegalArgumentException("answered: " + answered.getTotalCount() + " samples (expected: complete "
                    + complete.getTotalCount() + " + tainted " + tainted.getTotalCount() + ")");
        }
    }

    /** The histograms of one phase, with the answered ones added up. */
    public static Latencies of(Histogram complete, Histogram tainted, Histogram refused, Histogram errors, Histogram lag) {
        Histogram answered = complete.copy();
        answered.add(tainted);
        return new Latencies(complete, tainted, refused, errors, lag, answered);
    }

    /** A phase that told no refusal from other errors (a run written before they were split): none refused. */
    public static Latencies of(Histogram complete, Histogram tainted, Histogram errors, Histogram lag) {
        return of(complete, tainted, newHistogram(), errors, lag);
    }

    /** No samples at all. */
    public static Latencies empty() {
        return of(newHistogram(), newHistogram(), newHistogram(), newHistogram(), newHistogram());
    }

    /** Every request that got no answer: the refusals and the other errors together. */
    public Histogram failures() {
        Histogram failures = refused.copy();
        failures.add(errors);
        return failures;
    }

    /** An empty histogram of the shape every latency is recorded in. */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_MICROS, 3);
    }
}
