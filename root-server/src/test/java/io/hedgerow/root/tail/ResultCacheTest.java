package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.api.TotalHits;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.tail.ResultCache.Lookup;
import io.hedgerow.root.tail.ResultCache.Resolution;
import io.hedgerow.root.tail.ResultCache.Stats;
import io.hedgerow.root.tail.ResultCache.TaintedEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultCacheTest {
    private static final int PARTITIONS = 16;

    private final ManualTicker ticker = new ManualTicker();
    private final ResultCache cache = new ResultCache(TailSettings.defaults(), ticker); // 30 s
    private final CacheKey key = Fingerprints.key(SearchRequest.of("european parliament"));

    /** A result over {@code answered} of 16 equal partitions, missing ones timed out. */
    private static SearchResult result(int answered, String firstId) {
        List<PartitionError> errors = new ArrayList<>();
        for (int p = answered; p < PARTITIONS; p++) {
            errors.add(new PartitionError(p, PartitionError.Kind.TIMED_OUT, "leaf-1", "no answer in 25 ms"));
        }
        List<Hit> hits = List.of(new Hit(firstId, 2.5f, 0, Map.of("title", "European Parliament"), "<b>European</b>"),
                new Hit("doc-2", 1.5f, 1, Map.of(), null));
        return new SearchResult(hits, new TotalHits(120, TotalHits.Relation.EQUAL_TO), 5_000_000L,
                new Coverage(PARTITIONS, answered, answered / (double) PARTITIONS), errors, List.of(), CacheStatus.OFF);
    }

    private static SearchResult complete() {
        return result(PARTITIONS, "doc-1");
    }

    @Test
    void servesACompleteResultFromTheCache() {
        assertThat(cache.lookup(key)).isEqualTo(ResultCache.MISS);
        Resolution resolution = cache.complete(key, ResultCache.MISS, complete());
        assertThat(resolution).isEqualTo(new Resolution(complete(), CacheStatus.MISS, false));

        Lookup again = cache.lookup(Fingerprints.key(SearchRequest.of("european \t parliament ")));
        assertThat(again).isEqualTo(new ResultCache.Hit(complete()));
        Stats stats = cache.stats();
        assertThat(stats.hits()).isEqualTo(1);
        assertThat(stats.misses()).isEqualTo(1);
        assertThat(stats.hitRate()).isEqualTo(0.5);
        assertThat(stats.entries()).isEqualTo(1);
        assertThat(stats.taintedEntries()).isZero();
    }

    @Test
    void neverServesATaintedEntryAsComplete() {
        SearchResult tainted = result(15, "doc-1");
        cache.complete(key, cache.lookup(key), tainted);
        Lookup lookup = cache.lookup(key);
        assertThat(lookup).isEqualTo(new TaintedEntry(tainted, 0));
        assertThat(lookup).isNotInstanceOf(ResultCache.Hit.class);
        assertThat(cache.stats().taintedLookups()).isEqualTo(1);
        assertThat(cache.stats().taintedStored()).isEqualTo(1);
        assertThat(cache.stats().taintedEntries()).isEqualTo(1);
        assertThat(cache.stats().hits()).isZero();
    }

    @Test
    void aFreshCompleteRunReplacesATaintedEntry() {
        cache.store(key, result(15, "doc-1"));
        Lookup lookup = cache.lookup(key);
        Resolution resolution = cache.complete(key, lookup, complete());
        assertThat(resolution).isEqualTo(new Resolution(complete(), CacheStatus.REFRESHED, false));
        assertThat(cache.lookup(key)).isEqualTo(new ResultCache.Hit(complete()));
        Stats stats = cache.stats();
        assertThat(stats.refreshed()).isEqualTo(1);
        assertThat(stats.servedTainted()).isZero();
        assertThat(stats.taintedEntries()).isZero();
    }

    @Test
    void aFreshRunWithLessCoverageServesTheCachedTaintedOneAndKeepsIt() {
        SearchResult cached = result(15, "cached");
        cache.store(key, cached);
        SearchResult worse = result(14, "fresh");
        Resolution resolution = cache.complete(key, cache.lookup(key), worse);
        assertThat(resolution).isEqualTo(new Resolution(cached, CacheStatus.REFRESHED, true));
        assertThat(resolution.result().tainted()).isTrue();
        assertThat(cache.lookup(key)).isEqualTo(new TaintedEntry(cached, 0));
        assertThat(cache.stats().servedTainted()).isEqualTo(1);
    }

    @Test
    void aFreshTaintedRunWithAsMuchCoverageOrMoreReplacesTheEntry() {
        cache.store(key, result(14, "cached"));
        SearchResult same = result(14, "fresh");
        assertThat(cache.complete(key, cache.lookup(key), same)).isEqualTo(new Resolution(same, CacheStatus.REFRESHED, false));
        assertThat(cache.lookup(key)).isEqualTo(new TaintedEntry(same, 0));

        SearchResult better = result(15, "better");
        assertThat(cache.complete(key, cache.lookup(key), better).result()).isEqualTo(better);
        assertThat(cache.lookup(key)).isEqualTo(new TaintedEntry(better, 0));
        assertThat(cache.stats().taintedEntries()).isEqualTo(1);
    }

    @Test
    void chooseIsThePureRule() {
        SearchResult cached = result(12, "cached");
        SearchResult full = complete();
        assertThat(CacheRules.choose(cached, full)).isSameAs(full);
        SearchResult less = result(11, "fresh");
        assertThat(CacheRules.choose(cached, less)).isSameAs(cached);
        SearchResult tie = result(12, "fresh");
        assertThat(CacheRules.choose(cached, tie)).isSameAs(tie);
        // same documents, fewer partitions (an empty partition answered in the cached run)
        SearchResult fewerPartitions = new SearchResult(tie.hits(), tie.totalHits(), 1, new Coverage(16, 11, 0.75),
                tie.errors().subList(0, 4), List.of(), CacheStatus.OFF);
        assertThat(CacheRules.choose(cached, fewerPartitions)).isSameAs(cached);
    }

    @Test
    void aResultWithFetchFailuresIsNotComplete() {
        SearchResult fetchFailed = new SearchResult(complete().hits(), complete().totalHits(), 1,
                new Coverage(PARTITIONS, PARTITIONS, 1.0),
                List.of(new PartitionError(3, PartitionError.Kind.FETCH_FAILED, "leaf-2", "fetch timed out")), List.of(), CacheStatus.OFF);
        assertThat(CacheRules.isComplete(fetchFailed)).isFalse();
        cache.store(key, fetchFailed);
        assertThat(cache.lookup(key)).isInstanceOf(TaintedEntry.class);
        // fuller than a 15-partition result: it wins the choice, still tainted
        assertThat(CacheRules.choose(result(15, "x"), fetchFailed)).isSameAs(fetchFailed);
    }

    @Test
    void aFailedRunFallsBackToATaintedEntryOnly() {
        assertThat(cache.failed(ResultCache.MISS)).isNull();
        SearchResult cached = result(10, "cached");
        cache.store(key, cached);
        assertThat(cache.failed(cache.lookup(key))).isEqualTo(new Resolution(cached, CacheStatus.REFRESHED, true));
    }

    @Test
    void aHitMustNotBeCompleted() {
        cache.store(key, complete());
        Lookup hit = cache.lookup(key);
        assertThatThrownBy(() -> cache.complete(key, hit, complete()))
                .hasMessage("lookup: hit (expected: miss or tainted entry; serve a hit as is)");
    }

    @Test
    void storesResultsWithoutTheirTrace() {
        SearchResult full = complete();
        SearchResult explained = new SearchResult(full.hits(), full.totalHits(), full.tookNanos(), full.coverage(),
                full.errors(), List.of(new SubRequestTrace(0, "leaf-0", SubRequestTrace.Kind.PRIMARY, 0.1, 1.2,
                        "ok", true, false)), CacheStatus.OFF);
        cache.store(key, explained);
        assertThat(cache.lookup(key)).isEqualTo(new ResultCache.Hit(full));
    }

    @Test
    void entriesExpireAtTheTtl() {
        cache.store(key, complete());
        cache.store(Fingerprints.key(SearchRequest.of("vote")), result(15, "t"));
        ticker.advance(Duration.ofSeconds(30).minusNanos(1));
        assertThat(cache.lookup(key)).isInstanceOf(ResultCache.Hit.class);
        ticker.advanceMillis(1);
        assertThat(cache.lookup(key)).isEqualTo(ResultCache.MISS);
        Stats stats = cache.stats();
        assertThat(stats.entries()).isZero();
        assertThat(stats.expirations()).isEqualTo(2);
        assertThat(stats.taintedEntries()).isZero();
        assertThat(stats.bytes()).isZero();
    }

    @Test
    void isBoundedByEntries() {
        ResultCache small = new ResultCache(TailSettings.defaults().withCache(Duration.ofSeconds(30), 4, 64L << 20), ticker);
        for (int i = 0; i < 40; i++) {
            small.store(Fingerprints.key(SearchRequest.of("q" + i)), complete());
        }
        Stats stats = small.stats();
        assertThat(stats.entries()).isLessThanOrEqualTo(4);
        assertThat(stats.evictions()).isEqualTo(40 - stats.entries());
        assertThat(stats.bytes()).isLessThanOrEqualTo(64L << 20);
    }

    @Test
    void isBoundedByBytes() {
        long oneResult = ResultSize.estimatedBytes(complete()) + Fingerprints.key(SearchRequest.of("q10")).estimatedBytes();
        long maxBytes = 3 * oneResult + oneResult / 2; // room for three
        ResultCache small = new ResultCache(TailSettings.defaults().withCache(Duration.ofSeconds(30), 1_000, maxBytes), ticker);
        for (int i = 10; i < 50; i++) {
            small.store(Fingerprints.key(SearchRequest.of("q" + i)), complete());
        }
        Stats stats = small.stats();
        assertThat(stats.entries()).isBetween(1L, 3L);
        assertThat(stats.bytes()).isLessThanOrEqualTo(maxBytes);
        assertThat(stats.evictions()).isEqualTo(40 - stats.entries());
    }

    @Test
    void estimatesSizeFromHitsFieldsSnippetsAndErrors() {
        SearchResult bare = new SearchResult(List.of(), new TotalHits(0, TotalHits.Relation.EQUAL_TO), 1,
                new Coverage(1, 1, 1.0), List.of(), List.of(), CacheStatus.OFF);
        long base = ResultSize.estimatedBytes(bare);
        SearchResult oneHit = new SearchResult(List.of(new Hit("abcd", 1f, 0, Map.of("t", "xy"), "snip")),
                bare.totalHits(), 1, bare.coverage(), List.of(), List.of(), CacheStatus.OFF);
        // hit 48 + id (40 + 8) + snippet (40 + 8) + map 48 + field 40 + key (40 + 2) + value (40 + 4)
        assertThat(ResultSize.estimatedBytes(oneHit) - base).isEqualTo(48 + 48 + 48 + 48 + 40 + 42 + 44);
    }

    @Test
    void anOffCacheStoresNothingAndCountsNothing() {
        ResultCache off = new ResultCache(TailSettings.defaults().withCache(Duration.ofSeconds(30), 0, 1), ticker);
        off.store(key, complete());
        assertThat(off.lookup(key)).isEqualTo(ResultCache.MISS);
        assertThat(off.complete(key, ResultCache.MISS, complete())).isEqualTo(new Resolution(complete(), CacheStatus.MISS, false));
        assertThat(off.stats()).isEqualTo(new Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    }

    // ------------------------------------------------------------------ conditional stores

    @Test
    void aTaintedRunThatEndsAfterACompleteOneLeavesTheCompleteEntry() {
        Lookup first = cache.lookup(key);
        Lookup second = cache.lookup(key); // two runs of one query, both missed
        cache.complete(key, first, complete());
        Resolution late = cache.complete(key, second, result(14, "late"));

        assertThat(late.result().coverage().partitionsAnswered()).as("the run's own result is served").isEqualTo(14);
        assertThat(cache.lookup(key)).isEqualTo(new ResultCache.Hit(complete()));
        assertThat(cache.stats().storesKeptBetter()).isEqualTo(1);
        assertThat(cache.stats().taintedEntries()).isZero();
    }

    @Test
    void ofTwoTaintedRunsTheOneCoveringMoreStaysWhicheverEndsLast() {
        Lookup first = cache.lookup(key);
        Lookup second = cache.lookup(key);
        cache.complete(key, first, result(15, "more"));
        cache.complete(key, second, result(12, "less"));
        assertThat(cache.lookup(key)).isEqualTo(new TaintedEntry(result(15, "more"), 0));

        cache.store(key, result(15, "as-much")); // as good, and newer: it replaces the entry
        assertThat(cache.lookup(key)).isEqualTo(new TaintedEntry(result(15, "as-much"), 0));
        assertThat(cache.stats().taintedEntries()).isEqualTo(1);
    }

    @Test
    void aNewerCompleteRunReplacesAnOlderCompleteEntry() {
        cache.store(key, complete());
        SearchResult newer = result(PARTITIONS, "newer");
        cache.store(key, newer);
        assertThat(cache.lookup(key)).isEqualTo(new ResultCache.Hit(newer));
    }

    @Test
    void anEntryThatStaysKeepsItsOwnTimeToLive() {
        cache.store(key, complete());
        ticker.advance(Duration.ofSeconds(20));
        cache.store(key, result(15, "tainted")); // refused: the complete entry is better
        ticker.advance(Duration.ofSeconds(10));
        assertThat(cache.lookup(key)).as("30 s after the complete result was stored").isInstanceOf(ResultCache.Miss.class);
    }

    @Test
    void aRunLookedUpBeforeAClearStoresNothingAfterIt() {
        Lookup before = cache.lookup(key);
        cache.invalidateAll();
        Lookup after = cache.lookup(key);
        assertThat(after).isNotEqualTo(before).isInstanceOf(ResultCache.Miss.class);

        assertThat(cache.complete(key, before, complete()).result()).as("served, not stored").isEqualTo(complete());
        assertThat(cache.lookup(key)).isInstanceOf(ResultCache.Miss.class);
        assertThat(cache.stats().storesAfterClear()).isEqualTo(1);

        cache.complete(key, after, complete());
        assertThat(cache.lookup(key)).as("a run looked up after the clear stores").isInstanceOf(ResultCache.Hit.class);
    }

    @Test
    void aRunThatFoundATaintedEntryBeforeAClearIsNeverServedThatEntry() {
        cache.store(key, result(15, "cleared"));
        Lookup tainted = cache.lookup(key);
        cache.invalidateAll();

        Resolution resolution = cache.complete(key, tainted, result(3, "fresh"));
        assertThat(resolution.fromCache()).isFalse();
        assertThat(resolution.result().hits().get(0).id()).isEqualTo("fresh");
        assertThat(cache.lookup(key)).as("nor stored after the clear").isInstanceOf(ResultCache.Miss.class);
        assertThat(cache.failed(tainted)).as("a failed run is not served the cleared entry").isNull();
    }

    @Test
    void preferIsThePureRule() {
        assertThat(CacheRules.prefer(complete(), result(15, "t"))).isTrue();
        assertThat(CacheRules.prefer(result(15, "t"), complete())).isFalse();
        assertThat(CacheRules.prefer(result(PARTITIONS, "newer"), complete())).isTrue();
        assertThat(CacheRules.prefer(result(14, "t"), result(15, "t"))).isFalse();
        assertThat(CacheRules.prefer(result(15, "t"), result(14, "t"))).isTrue();
        assertThat(CacheRules.prefer(result(15, "fresh"), result(15, "held"))).as("a tie goes to the newer").isTrue();
    }

    @Test
    void statusesHaveTheirApiLabels() {
        assertThat(CacheStatus.HIT.label()).isEqualTo("hit");
        assertThat(CacheStatus.MISS.label()).isEqualTo("miss");
        assertThat(CacheStatus.REFRESHED.label()).isEqualTo("refreshed");
        assertThat(CacheStatus.OFF.label()).isEqualTo("off");
    }
}
