package io.hedgerow.loadgen.report;

import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * A phase's latency histograms, in microseconds, one per outcome, and the generator's own
 * lateness. Kept apart because they mean different things: a fast refusal is not a fast answer,
 * and a request the generator sent late measured the generator.
 *
 * @param complete answers with every partition (HTTP 200, not tainted), from the intended start
 * @param tainted  answers with less than full coverage (HTTP 200, tainted), from the intended start
 * @param errors   any other status, or no answer at all, from the intended start
 * @param lag      for every request sent, from its intended start to its actual send
 * @param answered complete and tainted together: what users got back ({@link #of} adds them up)
 */
public record Latencies(Histogram complete, Histogram tainted, Histogram errors, Histogram lag, Histogram answered) {
    /** Latency is recorded in microseconds, from 1 us to 60 s, to 3 significant digits. */
    public static final long HIGHEST_MICROS = 60_000_000L;

    public Latencies {
        Objects.requireNonNull(complete, "complete");
        Objects.requireNonNull(tainted, "tainted");
        Objects.requireNonNull(errors, "errors");
        Objects.requireNonNull(lag, "lag");
        Objects.requireNonNull(answered, "answered");
        if (answered.getTotalCount() != complete.getTotalCount() + tainted.getTotalCount()) {
            throw new IllegalArgumentException("answered: " + answered.getTotalCount() + " samples (expected: complete "
                    + complete.getTotalCount() + " + tainted " + tainted.getTotalCount() + ")");
        }
    }

    /** The histograms of one phase, with the answered ones added up. */
    public static Latencies of(Histogram complete, Histogram tainted, Histogram errors, Histogram lag) {
        Histogram answered = complete.copy();
        answered.add(tainted);
        return new Latencies(complete, tainted, errors, lag, answered);
    }

    /** No samples at all. */
    public static Latencies empty() {
        return of(newHistogram(), newHistogram(), newHistogram(), newHistogram());
    }

    /** An empty histogram of the shape every latency is recorded in. */
    public static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_MICROS, 3);
    }
}
