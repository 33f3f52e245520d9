package io.hedgerow.common.wire;

import io.hedgerow.common.wire.proto.SearchRequest;

/**
 * What a leaf accepts in a search from the wire, whoever sent it: the root checks the same bounds
 * on its HTTP input, but a leaf's port can be reached by anyone who reaches the host, so the leaf
 * checks again rather than trust the frame (a {@code k} of two billion would allocate a priority
 * queue that size).
 */
public final class WireLimits {
    /** Most hits one search may ask a partition for: the paging window ({@code from + k}). */
    public static final int MAX_K = io.hedgerow.api.SearchRequest.MAX_WINDOW;
    /**
     * Most hits a partition counts exactly for one search, as the root's API bounds it: more than a
     * micro-partition holds, so it means "exact" (what an exact count costs is the cost guards' and
     * the expensive lane's business). Not checked on the wire: leaf tests send {@code Integer.MAX_VALUE}.
     */
    public static final int MAX_TOTAL_HITS_THRESHOLD = io.hedgerow.api.SearchRequest.MAX_TOTAL_HITS_THRESHOLD;
    /** Longest query text, in characters. */
    public static final int MAX_QUERY_CHARS = 8192;

    private WireLimits() {
    }

    /** What is wrong with a search from the wire, or null when it is within bounds. */
    public static String searchProblem(SearchRequest search) {
        // 0 is protobuf's unset value, searched as 1 (PartitionSearcher), as before these checks.
        if (search.getK() < 0 || search.getK() > MAX_K) {
            return "k: " + search.getK() + " (expected: 0.." + MAX_K + ", 0 for 1)";
        }
        if (search.getSortCount() > io.hedgerow.api.SearchRequest.MAX_SORT_FIELDS) {
            return "sort: " + search.getSortCount() + " keys (expected: <= " + io.hedgerow.api.SearchRequest.MAX_SORT_FIELDS + ")";
        }
        if (search.getSearchAfterCount() > 0 && search.getSearchAfterCount() != search.getSortCount() + 1) {
            return "search_after: " + search.getSearchAfterCount() + " values (expected: " + (search.getSortCount() + 1) + ")";
        }
        if (search.getQuery().length() > MAX_QUERY_CHARS) {
            return "query: " + search.getQuery().length() + " characters (expected: <= " + MAX_QUERY_CHARS + ")";
        }
        return null;
    }
}
