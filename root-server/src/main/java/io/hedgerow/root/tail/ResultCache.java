package io.hedgerow.root.tail;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.api.CacheStatus;
import io.hedgerow.root.api.PartitionError;
import io.hedgerow.root.api.SearchResult;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Recent results by {@link CacheKey}, aware of taint: a complete result is served from the cache,
 * a tainted one never is as if it were complete. Dean's talk on tainted partial results: a result
 * that missed part of the index is fine to return once, but a cache that kept serving it would make
 * a passing straggler a lasting gap.
 *
 * <p>The protocol, for one request:
 * <ol>
 * <li>{@link #lookup}: a {@link Hit} (complete entry: serve it, {@code cache: hit}), a {@link
 *     TaintedEntry} (run the query afresh) or a {@link Miss} (run it).</li>
 * <li>After the run, {@link #complete} with the lookup and the fresh result: it stores what should
 *     be stored and says what to serve. After a tainted entry, the fresh result is served and
 *     stored unless it covers less than the cached one ({@link #choose}); then the cached one is
 *     served, still tainted, and kept. Either way the response says {@code cache: refreshed}. If the
 *     run failed altogether, {@link #failed} offers the tainted entry the same way.</li>
 * </ol>
 * A result counts as complete only when every partition answered and it carries no error at all:
 * a result whose hits lack their stored fields ({@code fetch_failed}) is kept as tainted too.
 * Results are stored without their trace ({@code explain} is not part of the key).
 *
 * <p>Bounded by entries and by bytes at once: Caffeine bounds by one weight, so each entry weighs
 * its estimated size ({@link #estimatedBytes}) but at least {@code cacheMaxBytes / cacheMaxEntries},
 * which caps the count at {@code cacheMaxEntries} and the estimated bytes at {@code cacheMaxBytes}.
 * Entries expire {@code cacheTtl} after they were stored. With {@code cacheMaxEntries} 0 the cache
 * is off: every lookup misses (uncounted) and nothing is stored.
 *
 * <p><b>Assumptions and guarantees.</b> All methods may be called from any number of threads, as
 * the root's event loops share one cache. A lookup is one concurrent hash-map read, a ticker read
 * and a counter increment; it never blocks. The cache's upkeep (expiry, eviction, the removal
 * counts) runs on the calling threads in small amortized steps, never on a thread of its own. The
 * counters are exact totals; {@link Stats#taintedEntries} may lag a concurrent store or removal by
 * that one entry. An entry past its time to live is never returned. Two requests that miss at once
 * both run, and the later store wins: the cache does not coalesce requests. Time comes only from
 * the injected {@link Ticker}.
 */
public final class ResultCache {

    /** What {@link #lookup} found. */
    public sealed interface Lookup permits Hit, TaintedEntry, Miss {
    }

    /** A complete entry: serve it. */
    public record Hit(SearchResult result) implements Lookup {
        public Hit {
            Objects.requireNonNull(result, "result");
        }
    }

    /** A tainted entry: run the query afresh, then {@link #complete} decides. */
    public record TaintedEntry(SearchResult cached) implements Lookup {
        public TaintedEntry {
            Objects.requireNonNull(cached, "cached");
        }
    }

    /** No entry. */
    public record Miss() implements Lookup {
    }

    /** The one {@link Miss}. */
    public static final Miss MISS = new Miss();

    /**
     * What to serve after a run.
     *
     * @param result     the result to serve
     * @param status     what the response says about the cache
     * @param fromCache  true when {@code result} is the cached tainted one, because the fresh run
     *                   covered less
     */
    public record Resolution(SearchResult result, CacheStatus status, boolean fromCache) {
        public Resolution {
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(status, "status");
        }
    }

    /**
     * Counters since start-up, for metrics.
     *
     * @param hits           lookups that found a complete entry
     * @param misses         lookups that found nothing
     * @param taintedLookups lookups that found a tainted entry (and so ran afresh)
     * @param refreshed      runs completed after a tainted entry
     * @param servedTainted  of those, runs that served the cached tainted result, as the fresh one
     *                       covered less (or failed)
     * @param taintedStored  tainted results stored
     * @param taintedEntries tainted entries held now
     * @param evictions      entries evicted for size
     * @param expirations    entries removed at their time to live
     * @param entries        entries held now
     * @param bytes          estimated bytes held now (each entry at least its minimum weight)
     */
    public record Stats(long hits, long misses, long taintedLookups, long refreshed, long servedTainted,
            long taintedStored, long taintedEntries, long evictions, long expirations, long entries, long bytes) {

        /** Hits over all lookups; 0 before any. */
        public double hitRate() {
            long lookups = hits + misses + taintedLookups;
            return lookups == 0 ? 0 : hits / (double) lookups;
        }
    }

    private record Entry(SearchResult result, boolean tainted, int weight) {
    }

    private final boolean enabled;
    private final int minWeight;
    private final Cache<CacheKey, Entry> cache;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder taintedLookups = new LongAdder();
    private final LongAdder refreshed = new LongAdder();
    private final LongAdder servedTainted = new LongAdder();
    private final LongAdder taintedStored = new LongAdder();
    private final LongAdder taintedEntries = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder expirations = new LongAdder();

    public ResultCache(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(ticker, "ticker");
        this.enabled = settings.cacheEnabled();
        long maxEntries = Math.max(1, settings.cacheMaxEntries());
        this.minWeight = (int) Math.min(Integer.MAX_VALUE, Math.max(1, ceilDiv(settings.cacheMaxBytes(), maxEntries)));
        this.cache = Caffeine.newBuilder()
                .maximumWeight(settings.cacheMaxBytes())
                .weigher((CacheKey key, Entry entry) -> entry.weight())
                .expireAfterWrite(settings.cacheTtl())
                .ticker(ticker::nanoTime)
                .executor(Runnable::run)
                .removalListener((CacheKey key, Entry entry, RemovalCause cause) -> removed(entry, cause))
                .build();
    }

    /** What the cache holds for a request. */
    public Lookup lookup(CacheKey key) {
        if (!enabled) {
            return MISS;
        }
        Entry entry = cache.getIfPresent(key);
        if (entry == null) {
            misses.increment();
            return MISS;
        }
        if (entry.tainted()) {
            taintedLookups.increment();
            return new TaintedEntry(entry.result());
        }
        hits.increment();
        return new Hit(entry.result());
    }

    /**
     * Stores what a run produced as {@link #choose} says, and says what to serve.
     *
     * @param lookup what {@link #lookup} found before the run: a {@link Miss} or a {@link TaintedEntry}
     * @param fresh  the run's result
     * @throws IllegalArgumentException for a {@link Hit}: nothing should have run
     */
    public Resolution complete(CacheKey key, Lookup lookup, SearchResult fresh) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fresh, "fresh");
        return switch (lookup) {
            case Hit hit -> throw new IllegalArgumentException("lookup: hit (expected: miss or tainted entry; serve a hit as is)");
            case Miss miss -> {
                store(key, fresh);
                yield new Resolution(fresh, CacheStatus.MISS, false);
            }
            case TaintedEntry tainted -> {
                refreshed.increment();
                SearchResult chosen = choose(tainted.cached(), fresh);
                if (chosen == fresh) {
                    store(key, fresh);
                    yield new Resolution(fresh, CacheStatus.REFRESHED, false);
                }
                servedTainted.increment();
                yield new Resolution(chosen, CacheStatus.REFRESHED, true);
            }
        };
    }

    /**
     * What to serve when the run after a lookup failed altogether (no partition answered): the
     * cached tainted result, if there was one (a failed run covers nothing, less than any entry);
     * null otherwise, and the failure stands.
     */
    public Resolution failed(Lookup lookup) {
        if (lookup instanceof TaintedEntry tainted) {
            refreshed.increment();
            servedTainted.increment();
            return new Resolution(tainted.cached(), CacheStatus.REFRESHED, true);
        }
        return null;
    }

    /**
     * The rule for a request that found a tainted entry and ran afresh: the fresh result, unless it
     * is itself short of complete and covers less than the cached one, in which case the cached one
     * (which stays tainted: it is never served as complete). Coverage is compared by document
     * fraction, then by partitions answered; a tie goes to the fresh result, being newer. Pure.
     */
    public static SearchResult choose(SearchResult cachedTainted, SearchResult fresh) {
        if (isComplete(fresh)) {
            return fresh;
        }
        double freshDocs = fresh.coverage().docsFraction();
        double cachedDocs = cachedTainted.coverage().docsFraction();
        if (freshDocs != cachedDocs) {
            return freshDocs < cachedDocs ? cachedTainted : fresh;
        }
        return fresh.coverage().partitionsAnswered() < cachedTainted.coverage().partitionsAnswered()
                ? cachedTainted : fresh;
    }

    /** True when a result may be served from the cache as complete: every partition answered, no error. */
    public static boolean isComplete(SearchResult result) {
        return result.coverage().complete() && result.errors().isEmpty();
    }

    /** Stores a result (without its trace), marked tainted unless {@link #isComplete}. */
    public void store(CacheKey key, SearchResult result) {
        if (!enabled) {
            return;
        }
        SearchResult stored = result.trace().isEmpty() ? result : result.asCached(result.tookNanos(), result.cache());
        boolean tainted = !isComplete(stored);
        int weight = (int) Math.min(Integer.MAX_VALUE, Math.max(minWeight, key.estimatedBytes() + estimatedBytes(stored)));
        if (tainted) {
            taintedStored.increment();
            taintedEntries.increment(); // before the put, so a racing removal cannot take the gauge below zero
        }
        cache.put(key, new Entry(stored, tainted, weight));
    }

    /** Drops every entry, as an operator may after reindexing. */
    public void invalidateAll() {
        cache.invalidateAll();
    }

    /** Counters and sizes now (expired entries are dropped first). */
    public Stats stats() {
        cache.cleanUp();
        long bytes = cache.policy().eviction().map(eviction -> eviction.weightedSize().orElse(0)).orElse(0L);
        return new Stats(hits.sum(), misses.sum(), taintedLookups.sum(), refreshed.sum(), servedTainted.sum(),
                taintedStored.sum(), taintedEntries.sum(), evictions.sum(), expirations.sum(),
                cache.estimatedSize(), bytes);
    }

    /**
     * A rough size of a result on the heap: object headers and references at a 64-bit JVM's usual
     * sizes, strings at two bytes a character (an upper bound: most are stored at one). Meant to
     * bound memory within a factor of about two, not to measure it.
     */
    public static long estimatedBytes(SearchResult result) {
        long bytes = 48 + 32 + 32 + 3 * 40L; // result, total hits, coverage, three lists
        for (io.hedgerow.root.api.Hit hit : result.hits()) {
            bytes += 40 + 8 + string(hit.id()) + string(hit.snippet());
            Map<String, String> fields = hit.fields();
            if (fields != null) {
                bytes += 48;
                for (Map.Entry<String, String> field : fields.entrySet()) {
                    bytes += 40 + string(field.getKey()) + string(field.getValue());
                }
            }
        }
        for (PartitionError error : result.errors()) {
            bytes += 40 + 8 + string(error.leaf()) + string(error.detail());
        }
        return bytes;
    }

    private static long string(String text) {
        return text == null ? 0 : 40 + 2L * text.length();
    }

    private void removed(Entry entry, RemovalCause cause) {
        if (entry == null) {
            return;
        }
        if (entry.tainted()) {
            taintedEntries.decrement();
        }
        if (cause == RemovalCause.SIZE) {
            evictions.increment();
        } else if (cause == RemovalCause.EXPIRED) {
            expirations.increment();
        }
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
