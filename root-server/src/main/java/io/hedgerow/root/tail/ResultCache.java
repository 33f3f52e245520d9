package io.hedgerow.root.tail;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.time.Ticker;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
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
 *     stored unless it covers less than the cached one ({@link CacheRules#choose}); then the cached one is
 *     served, still tainted, and kept. Either way the response says {@code cache: refreshed}. If the
 *     run failed altogether, {@link #failed} offers the tainted entry the same way.</li>
 * </ol>
 *
 * <p><b>Stores are conditional.</b> Runs of one query overlap, and the cache may be cleared while
 * they run, so a store never blindly replaces what is there:
 * <ul>
 * <li>the better entry stays ({@link CacheRules#prefer}): a complete result beats a tainted one, and of two
 *     tainted ones the one covering more of the documents (then more partitions) stays; a result as
 *     good or better replaces the entry, being newer. So a tainted run that ends after a complete
 *     one never replaces it, and an entry that stays keeps its own time to live;</li>
 * <li>a lookup remembers the cache's <em>generation</em>, which {@link #invalidateAll} advances: a
 *     run whose lookup came before a clear stores nothing after it, and is not served the tainted
 *     entry the clear removed. A store that races a clear is undone by its own second look at the
 *     generation, or removed by the clear itself.</li>
 * </ul>
 * A result counts as complete only when every partition answered and it carries no error at all:
 * a result whose hits lack their stored fields ({@code fetch_failed}) is kept as tainted too.
 * Results are stored without their trace ({@code explain} is not part of the key).
 *
 * <p>Bounded by entries and by bytes at once: Caffeine bounds by one weight, so each entry weighs
 * its estimated size ({@link ResultSize#estimatedBytes}) but at least {@code cacheMaxBytes / cacheMaxEntries},
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
 * both run, and the better result stays (the later one if they are as good): the cache does not
 * coalesce requests. A store is one atomic compute on its key. Time comes only from the injected
 * {@link Ticker}.
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

    /**
     * A tainted entry: run the query afresh, then {@link #complete} decides.
     *
     * @param generation the cache's generation when it was looked up
     */
    public record TaintedEntry(SearchResult cached, long generation) implements Lookup {
        public TaintedEntry {
            Objects.requireNonNull(cached, "cached");
        }
    }

    /**
     * No entry.
     *
     * @param generation the cache's generation when it was looked up
     */
    public record Miss(long generation) implements Lookup {
    }

    /** A miss in the first generation (before any {@link #invalidateAll}); also what a disabled cache answers. */
    public static final Miss MISS = new Miss(0);

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
     * @param storesKeptBetter results not stored because the entry held was better
     * @param storesAfterClear results not stored (or removed again) because the cache was cleared
     *                         after their run's lookup
     */
    public record Stats(long hits, long misses, long taintedLookups, long refreshed, long servedTainted,
            long taintedStored, long taintedEntries, long evictions, long expirations, long entries, long bytes,
            long storesKeptBetter, long storesAfterClear) {

        /** Hits over all lookups; 0 before any. */
        public double hitRate() {
            long lookups = hits + misses + taintedLookups;
            return lookups == 0 ? 0 : hits / (double) lookups;
        }
    }

    /** @param storedAtNanos when the result was stored, on the cache's ticker: it expires a time to live later */
    record Entry(SearchResult result, boolean tainted, int weight, long storedAtNanos) {
    }

    private final boolean enabled;
    private final int minWeight;
    private final Ticker ticker;
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
    private final LongAdder storesKeptBetter = new LongAdder();
    private final LongAdder storesAfterClear = new LongAdder();
    /** Advanced by every {@link #invalidateAll}; a lookup carries the value it saw. */
    private final AtomicLong generation = new AtomicLong();

    public ResultCache(TailSettings settings, Ticker ticker) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(ticker, "ticker");
        this.enabled = settings.cacheEnabled();
        this.ticker = ticker;
        long maxEntries = Math.max(1, settings.cacheMaxEntries());
        this.minWeight = (int) Math.min(Integer.MAX_VALUE, Math.max(1, ceilDiv(settings.cacheMaxBytes(), maxEntries)));
        this.cache = Caffeine.newBuilder()
                .maximumWeight(settings.cacheMaxBytes())
                .weigher((CacheKey key, Entry entry) -> entry.weight())
                .expireAfter(new ExpireAfterStore(settings.cacheTtl().toNanos()))
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
        // Read before the entry: a lookup that races a clear takes the older generation, and stores nothing.
        long seen = generation.get();
        Entry entry = cache.getIfPresent(key);
        if (entry == null) {
            misses.increment();
            return seen == 0 ? MISS : new Miss(seen);
        }
        if (entry.tainted()) {
            taintedLookups.increment();
            return new TaintedEntry(entry.result(), seen);
        }
        hits.increment();
        return new Hit(entry.result());
    }

    /**
     * Stores what a run produced as {@link CacheRules#choose} says, and says what to serve.
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
                store(key, fresh, miss.generation());
                yield new Resolution(fresh, CacheStatus.MISS, false);
            }
            case TaintedEntry tainted -> {
                refreshed.increment();
                if (tainted.generation() != generation.get()) {
                    // Cleared since the lookup: the entry it found is gone, and must not come back.
                    storesAfterClear.increment();
                    yield new Resolution(fresh, CacheStatus.REFRESHED, false);
                }
                SearchResult chosen = CacheRules.choose(tainted.cached(), fresh);
                if (chosen == fresh) {
                    store(key, fresh, tainted.generation());
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
        if (lookup instanceof TaintedEntry tainted && tainted.generation() == generation.get()) {
            refreshed.increment();
            servedTainted.increment();
            return new Resolution(tainted.cached(), CacheStatus.REFRESHED, true);
        }
        return null;
    }

    /**
     * Stores a result (without its trace), marked tainted unless {@link CacheRules#isComplete}, unless the
     * entry held is better ({@link CacheRules#prefer}).
     */
    public void store(CacheKey key, SearchResult result) {
        store(key, result, generation.get());
    }

    /** As {@link #store(CacheKey, SearchResult)}, for a run whose lookup saw {@code seenGeneration}. */
    private void store(CacheKey key, SearchResult result, long seenGeneration) {
        if (!enabled) {
            return;
        }
        if (seenGeneration != generation.get()) {
            storesAfterClear.increment();
            return;
        }
        SearchResult stored = result.trace().isEmpty() ? result : result.asCached(result.tookNanos(), result.cache());
        boolean tainted = !CacheRules.isComplete(stored);
        int weight = (int) Math.min(Integer.MAX_VALUE, Math.max(minWeight, key.estimatedBytes() + ResultSize.estimatedBytes(stored)));
        Entry candidate = new Entry(stored, tainted, weight, ticker.nanoTime());
        boolean[] put = new boolean[1];
        cache.asMap().compute(key, (k, held) -> {
            if (held != null && !CacheRules.prefer(stored, held.result())) {
                return held; // kept, with its own expiry (ExpireAfterStore)
            }
            if (tainted) {
                taintedStored.increment();
                taintedEntries.increment(); // before the put, so a racing removal cannot take the gauge below zero
            }
            put[0] = true;
            return candidate;
        });
        if (!put[0]) {
            storesKeptBetter.increment();
        } else if (seenGeneration != generation.get() && cache.asMap().remove(key, candidate)) {
            // A clear began after the check above and may have missed this entry: take it out ourselves.
            storesAfterClear.increment();
        }
    }

    /**
     * Drops every entry, as an operator may after reindexing, and makes every run looked up before
     * this store nothing ({@link #lookup} generations).
     */
    public void invalidateAll() {
        generation.incrementAndGet();
        cache.invalidateAll();
    }

    /** Counters and sizes now (expired entries are dropped first). */
    public Stats stats() {
        cache.cleanUp();
        long bytes = cache.policy().eviction().map(eviction -> eviction.weightedSize().orElse(0)).orElse(0L);
        return new Stats(hits.sum(), misses.sum(), taintedLookups.sum(), refreshed.sum(), servedTainted.sum(),
                taintedStored.sum(), taintedEntries.sum(), evictions.sum(), expirations.sum(),
                cache.estimatedSize(), bytes, storesKeptBetter.sum(), storesAfterClear.sum());
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
