package io.hedgerow.loadgen.report;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What the root's own counters said about a phase, read before and after it: the extra leaf
 * requests it cost, tied pairs where both copies ran, how many searches the root saw, and its own
 * time per search (first byte in to last byte out) by outcome. Each is null when the root could
 * not tell (a root without the counter, or a phase without tied requests); why goes in the phase's
 * notes.
 *
 * @param extraLeafRequestsPct sub-requests of every kind beyond the least a search needs (one per
 *                             partition, one per leaf holding hits), as a percentage of that least
 * @param tiedBothRanPct       of the tied pairs sent, the percentage where both copies ran
 * @param searches             search requests the root received during the phase
 * @param latency              the root's time per search by outcome ({@code complete}, {@code tainted},
 *                             {@code errors}, and {@code refused} by admission control),
 *                             microseconds; null when the root does not serve it
 * @param leaves               each leaf's latency histograms over the phase, by name such as
 *                             {@code leaf-1-search-service} (leaf, phase, part of {@code /metrics/leaves}),
 *                             microseconds, in leaf order; empty when the root does not serve them
 * @param cpu                  cores busy on average during the phase; null when not measured
 */
public record RootView(Double extraLeafRequestsPct, Double tiedBothRanPct, Long searches, Latency latency,
        Map<String, Histogram> leaves, Cpu cpu) {
    /** Nothing known: the root was not read (not a Hedgerow root, or a self-test). */
    public static final RootView UNKNOWN = new RootView(null, null, null, null);

    public RootView {
        leaves = leaves == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(leaves));
    }

    /** A view without the leaves' histograms and the CPU. */
    public RootView(Double extraLeafRequestsPct, Double tiedBothRanPct, Long searches, Latency latency) {
        this(extraLeafRequestsPct, tiedBothRanPct, searches, latency, Map.of(), null);
    }

    /**
     * Cores busy on average during a phase, each null when unknown: the whole machine's (Linux),
     * the load generator's own, and the root's (its {@code process_cpu_time_ns_total}). On a
     * local cluster {@link #others} is the leaves' (and whatever else the machine ran).
     */
    public record Cpu(Double machineCores, Double generatorCores, Double rootCores) {
        /** The machine's busy cores less the generator's and the root's; null when one is unknown. */
        public Double others() {
            return machineCores == null || generatorCores == null || rootCores == null ? null
                    : Math.max(0, machineCores - generatorCores - rootCores);
        }
    }

    /**
     * The root's own latency by outcome. {@code refused}: searches admission control turned away
     * (first byte in to 503 written); empty from a root without admission control.
     */
    public record Latency(Histogram complete, Histogram tainted, Histogram errors, Histogram refused) {
        public Histogram answered() {
            Histogram answered = complete.copy();
            answered.add(tainted);
            return answered;
        }

        public Map<String, Histogram> byOutcome() {
            return Map.of("complete", complete, "tainted", tainted, "errors", errors, "refused", refused);
        }
    }
}
