package io.hedgerow.leaf.search;

/**
 * Whether a leaf keeps Lucene's query cache, and its bounds ({@code --query-cache}).
 *
 * @param enabled        off: every searcher runs without a query cache (the default, as before)
 * @param maxQueries     the most distinct queries (filters) cached at once, over all partitions
 * @param maxRamBytes    the most heap the cached doc id sets may hold, over all partitions
 * @param minSegmentDocs segments with fewer documents are never cached: a refresh after a few live
 *                       writes makes such segments, which would churn the cache for nothing, while
 *                       a built partition's segment (about 1,100 Europarl documents) is cached, where
 *                       Lucene's default predicate wants 10,000
 */
public record QueryCacheSettings(boolean enabled, int maxQueries, long maxRamBytes, int minSegmentDocs) {
    /** As Lucene's IndexSearcher's default cache. */
    public static final int DEFAULT_MAX_QUERIES = 1000;
    /** As Lucene's IndexSearcher's default cache: 32 MiB, or a twentieth of the heap when that is less. */
    public static final long DEFAULT_MAX_RAM_BYTES = 32L << 20;
    public static final int DEFAULT_MIN_SEGMENT_DOCS = 256;

    public QueryCacheSettings {
        if (maxQueries < 1) {
            throw new IllegalArgumentException("maxQueries: " + maxQueries + " (expected: >= 1)");
        }
        if (maxRamBytes < 1) {
            throw new IllegalArgumentException("maxRamBytes: " + maxRamBytes + " (expected: >= 1)");
        }
        if (minSegmentDocs < 0) {
            throw new IllegalArgumentException("minSegmentDocs: " + minSegmentDocs + " (expected: >= 0)");
        }
    }

    /** No query cache. */
    public static QueryCacheSettings off() {
        return new QueryCacheSettings(false, DEFAULT_MAX_QUERIES, DEFAULT_MAX_RAM_BYTES, DEFAULT_MIN_SEGMENT_DOCS);
    }

    /**
     * A cache of 1,000 queries and 32 MiB or a twentieth of {@code maxHeapBytes}, whichever is less,
     * on segments of 256 documents or more.
     */
    public static QueryCacheSettings on(long maxHeapBytes) {
        if (maxHeapBytes < 1) {
            throw new IllegalArgumentException("maxHeapBytes: " + maxHeapBytes + " (expected: >= 1)");
        }
        return new QueryCacheSettings(true, DEFAULT_MAX_QUERIES, Math.max(1, Math.min(DEFAULT_MAX_RAM_BYTES,
                maxHeapBytes / 20)), DEFAULT_MIN_SEGMENT_DOCS);
    }

    /** {@code off}, or {@code on} with its bounds, for the log line and {@code toString}. */
    public String describe() {
        return enabled ? "on (" + maxQueries + " queries, " + (maxRamBytes >> 10) + " KiB, segments of "
                + minSegmentDocs + "+ documents)" : "off";
    }
}
