package io.hedgerow.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The merged answer to a {@link SearchRequest}.
 *
 * @param hits      top hits by score; ties broken by partition, then by document
 * @param totalHits matching documents over the answered partitions
 * @param tookNanos time from the root receiving the query to the result being ready
 * @param coverage  how much of the index answered, and how what answered is degraded
 * @param errors    why partitions are missing, one entry per missing partition
 * @param trace     every sub-request sent, in the order sent, when the request asked to explain;
 *                  empty otherwise
 * @param cache     whether the result came from the root's result cache
 * @param leaves    with {@code trace}: every leaf as the replica choice saw it; empty otherwise
 * @param aggregations the request's aggregations by name, in the order asked; empty when it asked
 *                  none. Over a {@link #tainted} result they count only the partitions that answered
 */
public record SearchResult(
        List<Hit> hits,
        TotalHits totalHits,
        long tookNanos,
        Coverage coverage,
        List<PartitionError> errors,
        List<SubRequestTrace> trace,
        CacheStatus cache,
        List<LeafTrace> leaves,
        Map<String, AggregationResult> aggregations) {

    public SearchResult {
        hits = List.copyOf(hits);
        errors = List.copyOf(errors);
        trace = List.copyOf(trace);
        java.util.Objects.requireNonNull(cache, "cache");
        leaves = List.copyOf(leaves);
        aggregations = aggregations == null || aggregations.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(aggregations));
    }

    /** A result without aggregations. */
    public SearchResult(List<Hit> hits, TotalHits totalHits, long tookNanos, Coverage coverage,
            List<PartitionError> errors, List<SubRequestTrace> trace, CacheStatus cache, List<LeafTrace> leaves) {
        this(hits, totalHits, tookNanos, coverage, errors, trace, cache, leaves, Map.of());
    }

    /** This result with the merged aggregations. */
    public SearchResult withAggregations(Map<String, AggregationResult> merged) {
        return new SearchResult(hits, totalHits, tookNanos, coverage, errors, trace, cache, leaves, merged);
    }

    /** A result without the leaves' trace. */
    public SearchResult(List<Hit> hits, TotalHits totalHits, long tookNanos, Coverage coverage,
            List<PartitionError> errors, List<SubRequestTrace> trace, CacheStatus cache) {
        this(hits, totalHits, tookNanos, coverage, errors, trace, cache, List.of(), Map.of());
    }

    /** This result as the cache served it. */
    public SearchResult withCache(CacheStatus status) {
        return status == cache ? this : new SearchResult(hits, totalHits, tookNanos, coverage, errors, trace, status, leaves,
                aggregations);
    }

    /** This result, stored in or served from the cache at {@code took}: without a trace. */
    public SearchResult asCached(long took, CacheStatus status) {
        return new SearchResult(hits, totalHits, took, coverage, errors, List.of(), status, List.of(), aggregations);
    }

    /** True when some partition did not answer: the hits are good, but maybe not the best. */
    public boolean tainted() {
        return !coverage.complete();
    }

    /**
     * True when the answers the result covers fall short of what was asked ({@link
     * Coverage#degraded}: hits without the stored fields asked for, a stale replica's answer).
     * Independent of {@link #tainted}: a result may be complete and degraded.
     */
    public boolean degraded() {
        return !coverage.degraded().isEmpty();
    }

    public double tookMillis() {
        return tookNanos / 1e6;
    }
}
