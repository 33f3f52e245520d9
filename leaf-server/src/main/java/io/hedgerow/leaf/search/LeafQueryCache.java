package io.hedgerow.leaf.search;

import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LRUQueryCache;
import org.apache.lucene.search.QueryCachingPolicy;
import org.apache.lucene.search.UsageTrackingQueryCachingPolicy;

/**
 * Lucene's query cache of one leaf, shared by every partition it serves (and every searcher a
 * refresh publishes), or none. Lucene caches only non-scoring clauses (a request's {@code filter},
 * or the whole query of a search sorted by fields only), per segment, as doc id sets: the answers
 * stay exact after live writes, because deletions are applied on top of a cached set and a refresh's
 * new segments are new cache keys.
 *
 * <p>What gets cached is Lucene's {@link UsageTrackingQueryCachingPolicy}: a clause is cached once it
 * has recurred among the last 256 uses: twice for costly ones (point ranges, {@code terms}, multi-term
 * queries), four times for a {@code bool}, five for others; a single term ({@code term} on a keyword)
 * and {@code exists} never, as they are fast already. Lucene also leaves a clause uncached where the
 * rest of the query is more than ten times as selective.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: Lucene's cache takes its lock with
 * {@code tryLock} on the search path (a search that finds it held runs uncached rather than wait);
 * the policy's history is a short synchronized ring per leaf. Reads of the statistics race with
 * searches and may be a moment old.
 */
public final class LeafQueryCache {
    private static final LeafQueryCache OFF = new LeafQueryCache(QueryCacheSettings.off(), null, null);

    private final QueryCacheSettings settings;
    /** Null when off. */
    private final LRUQueryCache cache;
    private final QueryCachingPolicy policy;

    private LeafQueryCache(QueryCacheSettings settings, LRUQueryCache cache, QueryCachingPolicy policy) {
        this.settings = settings;
        this.cache = cache;
        this.policy = policy;
    }

    /** No cache: searchers run as before. */
    public static LeafQueryCache off() {
        return OFF;
    }

    /** A new cache as the settings say, or {@link #off()}. */
    public static LeafQueryCache of(QueryCacheSettings settings) {
        if (!settings.enabled()) {
            return OFF;
        }
        int minDocs = settings.minSegmentDocs();
        // Lucene's default skip factor (10): a filter costing more than ten times the rest of the
        // query is left uncached, as the rest leads and the filter only verifies a few documents.
        LRUQueryCache cache = new LRUQueryCache(settings.maxQueries(), settings.maxRamBytes(),
                leaf -> leaf.reader().maxDoc() >= minDocs, 10f);
        return new LeafQueryCache(settings, cache, new UsageTrackingQueryCachingPolicy());
    }

    /** Sets the searcher's query cache and policy: this cache, or none. */
    public IndexSearcher configure(IndexSearcher searcher) {
        searcher.setQueryCache(cache);
        if (cache != null) {
            searcher.setQueryCachingPolicy(policy);
        }
        return searcher;
    }

    public boolean enabled() {
        return cache != null;
    }

    public QueryCacheSettings settings() {
        return settings;
    }

    /** Lookups that found a cached doc id set (0 when off). */
    public long hits() {
        return cache == null ? 0 : cache.getHitCount();
    }

    /** Lookups of a segment and query with nothing cached (0 when off). */
    public long misses() {
        return cache == null ? 0 : cache.getMissCount();
    }

    /** Doc id sets (a query on one segment each) held now (0 when off). */
    public long entries() {
        return cache == null ? 0 : cache.getCacheSize();
    }

    /** Doc id sets ever cached, evicted or not (0 when off). */
    public long cached() {
        return cache == null ? 0 : cache.getCacheCount();
    }

    /** Doc id sets evicted, by the bounds or because their segment closed (0 when off). */
    public long evictions() {
        return cache == null ? 0 : cache.getEvictionCount();
    }

    /** Heap the cache holds (0 when off). */
    public long ramBytes() {
        return cache == null ? 0 : cache.ramBytesUsed();
    }
}
