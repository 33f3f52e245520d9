package io.hedgerow.loadgen.run;

import java.util.Map;

/**
 * The root's counters that say what a phase cost beyond its answers, read from {@code /metrics}
 * before and after the phase. A counter the root does not have is absent from its map, or null.
 *
 * @param subRequests    {@code hedgerow_subrequests_total} by {@code kind} (primary, canary, retry,
 *                       backup, twin, fetch...)
 * @param needed         {@code hedgerow_subrequests_needed_total} by {@code phase} (query, fetch): the
 *                       least the searches needed; empty for a root that does not count it
 * @param tiedPairs      {@code hedgerow_tied_pairs_total}
 * @param tiedBothRan    {@code hedgerow_tied_both_ran_total}
 * @param searchRequests {@code hedgerow_search_requests_total}; null for a root that does not count it
 * @param cpuNanos       {@code process_cpu_time_ns_total}, the root process's CPU time; null for a root
 *                       that does not export it
 */
public record RootCounters(Map<String, Double> subRequests, Map<String, Double> needed, double tiedPairs,
        double tiedBothRan, Double searchRequests, Double cpuNanos) {

    public RootCounters {
        subRequests = Map.copyOf(subRequests);
        needed = Map.copyOf(needed);
    }

    /** Every sub-request sent, of any kind. */
    double sent() {
        return subRequests.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    double neededTotal() {
        return needed.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /**
     * Sub-requests of every kind sent between two scrapes beyond the least the searches needed
     * (one per partition in the query phase, one per leaf holding hits in the fetch phase: a
     * canary, a retry, a backup, a tied twin, a re-sent fetch are all extra), as a percentage of
     * that least; null when no search reached the leaves.
     */
    public static Double extraLeafPercent(RootCounters before, RootCounters after) {
        double needed = after.neededTotal() - before.neededTotal();
        if (!(needed > 0)) {
            return null;
        }
        return 100.0 * ((after.sent() - before.sent()) - needed) / needed;
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
}
