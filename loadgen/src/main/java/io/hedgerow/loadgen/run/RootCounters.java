package io.hedgerow.loadgen.run;

import java.util.List;
import java.util.Map;

/**
 * The root's counters that say what a phase cost beyond its answers, read from {@code /metrics}
 * before and after the phase: sub-requests sent by kind, tied pairs, and tied pairs where both
 * copies ran. A counter the root does not have reads as 0.
 *
 * @param subRequests {@code hedgerow_subrequests_total} by {@code kind} (primary, retry, backup, twin, fetch)
 * @param tiedPairs   {@code hedgerow_tied_pairs_total}
 * @param tiedBothRan {@code hedgerow_tied_both_ran_total}
 */
public record RootCounters(Map<String, Double> subRequests, double tiedPairs, double tiedBothRan) {
    /** Counters of a root that could not be read. */
    public static final RootCounters NONE = new RootCounters(Map.of(), 0, 0);
    /** Sub-requests beyond the primary one per partition: a retry after a failure, a backup (hedge), a tied twin. */
    public static final List<String> EXTRA_KINDS = List.of("retry", "backup", "twin");

    public RootCounters {
        subRequests = Map.copyOf(subRequests);
    }

    /**
     * Extra leaf requests between two scrapes, as a percentage of primary sub-requests; null when
     * the counters are not available (not a Hedgerow root, or no traffic).
     */
    public static Double extraLeafPercent(RootCounters before, RootCounters after) {
        double primary = after.sent("primary") - before.sent("primary");
        if (!(primary > 0)) {
            return null;
        }
        double extra = 0;
        for (String kind : EXTRA_KINDS) {
            extra += after.sent(kind) - before.sent(kind);
        }
        return 100.0 * extra / primary;
    }

    /**
     * Of the tied pairs sent between two scrapes, the percentage where both copies ran; null when
     * there were none (no tied requests, or a root that does not count them).
     */
    public static Double tiedBothRanPercent(RootCounters before, RootCounters after) {
        double pairs = after.tiedPairs - before.tiedPairs;
        if (!(pairs > 0)) {
            return null;
        }
        return 100.0 * (after.tiedBothRan - before.tiedBothRan) / pairs;
    }

    private double sent(String kind) {
        return subRequests.getOrDefault(kind, 0.0);
    }
}
