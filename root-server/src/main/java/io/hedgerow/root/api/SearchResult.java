package io.hedgerow.root.api;

import java.util.List;

/**
 * The merged answer to a {@link SearchRequest}.
 *
 * @param hits      top hits by score; ties broken by partition, then by document
 * @param totalHits matching documents over the answered partitions
 * @param tookNanos time from the root receiving the query to the result being ready
 * @param coverage  how much of the index answered
 * @param errors    why partitions are missing, one entry per missing partition
 * @param trace     every sub-request sent, in the order sent, when the request asked to explain;
 *                  empty otherwise
 */
public record SearchResult(
        List<Hit> hits,
        TotalHits totalHits,
        long tookNanos,
        Coverage coverage,
        List<PartitionError> errors,
        List<SubRequestTrace> trace) {

    public SearchResult {
        hits = List.copyOf(hits);
        errors = List.copyOf(errors);
        trace = List.copyOf(trace);
    }

    /** True when some partition did not answer: the hits are good, but maybe not the best. */
    public boolean tainted() {
        return !coverage.complete();
    }

    public double tookMillis() {
        return tookNanos / 1e6;
    }
}
