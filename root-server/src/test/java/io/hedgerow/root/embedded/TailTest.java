package io.hedgerow.root.embedded;

import static io.hedgerow.root.embedded.HedgingTest.awaitTrue;
import static io.hedgerow.root.embedded.HedgingTest.counter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.tail.TailSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Good-enough results, the taint-aware cache and canaries end to end, over real sockets and real
 * indexes. Slow leaves are stalled for longer than any test waits, so every check is on what came
 * back (coverage, missing partitions, traces, cache status), never on how fast it came. Every
 * canary path (ok, error, busy, crash, silent, overtaken) and the cutoff are scripted on a manual
 * clock in {@code io.hedgerow.root.search.SearchRun*Test}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TailTest {
    private static final int PARTITIONS = 6;
    /** Stalls outlast every test: a query that answers did not wait for the stalled leaf. */
    private static final InjectedStall STALLED = InjectedStall.of(Duration.ofSeconds(59), Duration.ofSeconds(60),
            Duration.ofMinutes(1));

    /** Three leaves, one copy of each partition, so a stalled leaf's partitions have no other replica. */
    private static EmbeddedCluster unreplicated(Path data, TailSettings tail) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("tail", IndexConfig.defaults(), TestData.documents(7, 600))
                .leaves(3).partitions(PARTITIONS).replicas(1)
                .defaultTimeout(Duration.ofSeconds(30))
                .faultInjection(true)
                .tail(tail)
                .start();
    }

    private static SearchRequest.Builder query() {
        return SearchRequest.builder("alpha OR bravo").k(20).exactTotalHits().hedge(HedgeMode.OFF);
    }

    private static SearchResult search(EmbeddedCluster cluster, SearchRequest.Builder request) {
        return cluster.client().search(request.build()).join();
    }

    /** A fixed cutoff keeps the test exact; the adaptive one is unit-tested on a manual clock. */
    private static TailSettings fixedCutoff() {
        return TailSettings.defaults().withCanaries(0)
                .withCutoff(TailSettings.defaults().cutoff().withFixed(Duration.ofMillis(50)));
    }

    @Test
    void aStalledLeafYieldsATaintedResultNamingItsPartitionsAsCancelled(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, fixedCutoff())) {
            SearchResult complete = search(cluster, query().cache(false));
            cluster.root().leafFaults().injectStall(0, STALLED).join();

            SearchResult tainted = search(cluster, query().minCoverage(0.5).cache(false));

            ClusterState state = cluster.root().cluster();
            int[] stalledPartitions = state.assignment().partitionsOf(0);
            boolean[] others = new boolean[PARTITIONS];
            Arrays.fill(others, true);
            for (int p : stalledPartitions) {
                others[p] = false;
            }
            assertThat(complete.tainted()).isFalse();
            assertThat(tainted.tainted()).isTrue();
            assertThat(tainted.coverage().partitionsAnswered()).isEqualTo(PARTITIONS - stalledPartitions.length);
            assertThat(tainted.coverage().docsFraction()).isCloseTo(state.docsFraction(others), within(1e-9))
                    .isLessThan(1.0).isGreaterThanOrEqualTo(0.5);
            assertThat(tainted.errors()).extracting(PartitionError::partition)
                    .containsExactlyInAnyOrder(Arrays.stream(stalledPartitions).boxed().toArray(Integer[]::new));
            assertThat(tainted.errors()).allSatisfy(error -> {
                assertThat(error.kind()).isEqualTo(PartitionError.Kind.CANCELLED);
                assertThat(error.detail()).contains("good-enough cutoff of 50 ms").contains("min_coverage 50.0%");
            });
            // Only hits of the partitions that answered, and every one of them that the full result ranks.
            Set<Integer> missing = Arrays.stream(stalledPartitions).boxed().collect(Collectors.toSet());
            assertThat(tainted.hits()).noneMatch(hit -> missing.contains(hit.partition()));
            assertThat(tainted.hits()).containsAll(complete.hits().stream()
                    .filter(hit -> !missing.contains(hit.partition())).limit(5).toList());
            assertThat(counter(cluster, "hedgerow.goodenough.cutoffs").count()).isEqualTo(1);
            assertThat(counter(cluster, "hedgerow.search.tainted").count()).isEqualTo(1);
        }
    }

    @Test
    void aFacetedSearchCutOffCountsTheAnsweredPartitionsOnlyAndIsTainted(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, fixedCutoff())) {
            // Every match with its partition, and a terms aggregation of one bucket per matching document.
            SearchResult complete = search(cluster, query().k(600).snippets(false).storedFields(false).cache(false));
            Map<String, Aggregation> byId = Map.of("ids", Aggregation.Terms.of(IndexConfig.ID_FIELD, 600));
            cluster.root().leafFaults().injectStall(0, STALLED).join();

            SearchResult tainted = search(cluster, query().k(0).aggs(byId).minCoverage(0.5).cache(false));

            Set<Integer> missing = Arrays.stream(cluster.root().cluster().assignment().partitionsOf(0)).boxed()
                    .collect(Collectors.toSet());
            List<String> answeredIds = complete.hits().stream().filter(hit -> !missing.contains(hit.partition()))
                    .map(Hit::id).sorted().toList();
            AggregationResult.Terms ids = (AggregationResult.Terms) tainted.aggregations().get("ids");
            assertThat(complete.totalHits().value()).isLessThanOrEqualTo(600).isGreaterThan(answeredIds.size());
            assertThat(tainted.tainted()).isTrue();
            assertThat(tainted.errors()).isNotEmpty().allSatisfy(error -> {
                assertThat(error.kind()).isEqualTo(PartitionError.Kind.CANCELLED);
                assertThat(error.detail()).contains("good-enough cutoff of 50 ms");
            });
            assertThat(ids.buckets().stream().map(bucket -> (String) bucket.key()).sorted().toList())
                    .as("a bucket for each match of the partitions that answered, none of the others'")
                    .isEqualTo(answeredIds);
            assertThat(ids.buckets()).allSatisfy(bucket -> assertThat(bucket.docCount()).isEqualTo(1));
            assertThat(tainted.totalHits().value()).isEqualTo(answeredIds.size());
            assertThat(counter(cluster, "hedgerow.goodenough.cutoffs").count()).isEqualTo(1);
        }
    }

    @Test
    void aStalledLeafIsWaitedForWhenCoverageWouldFallShort(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, fixedCutoff())) {
            cluster.root().leafFaults().injectStall(0, STALLED).join();

            // 0.95 of the documents cannot be had without the stalled leaf: wait, up to the timeout.
            SearchResult result = search(cluster, query().minCoverage(0.95).timeoutMillis(400).cache(false)
                    .snippets(false).storedFields(false));

            assertThat(result.tainted()).isTrue();
            assertThat(result.errors()).extracting(PartitionError::partition).containsExactlyInAnyOrder(
                    Arrays.stream(cluster.root().cluster().assignment().partitionsOf(0)).boxed().toArray(Integer[]::new));
            assertThat(result.errors()).allSatisfy(error -> assertThat(error.kind()).isEqualTo(PartitionError.Kind.TIMED_OUT));
            assertThat(counter(cluster, "hedgerow.goodenough.cutoffs").count()).isZero();
        }
    }

    @Test
    void healthyLeavesGiveCompleteResultsUnderTheDefaults(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, TailSettings.defaults())) {
            for (String text : List.of("alpha", "bravo OR charlie", "alpha AND delta", "echo*", "\"alpha bravo\"")) {
                SearchResult result = search(cluster, SearchRequest.builder(text).explain(true));
                assertThat(result.tainted()).as(text).isFalse();
                assertThat(result.errors()).as(text).isEmpty();
                // One canary, answered and used; on a loaded machine a first canary silent for its
                // timeout is followed by a second on another partition, and both answers may be used.
                assertThat(result.trace().stream().filter(t -> t.kind() == SubRequestTrace.Kind.CANARY).toList())
                        .as("canaries, at least one answered and used").isNotEmpty().hasSizeLessThanOrEqualTo(2)
                        .filteredOn(SubRequestTrace::used).isNotEmpty();
            }
            assertThat(counter(cluster, "hedgerow.search.tainted").count()).isZero();
        }
    }

    @Test
    void theCacheNeverServesATaintedEntryAsComplete(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, fixedCutoff())) {
            SearchRequest.Builder request = query().minCoverage(0.5);
            cluster.root().leafFaults().injectStall(0, STALLED).join();

            SearchResult first = search(cluster, request);
            assertThat(first.tainted()).isTrue();
            assertThat(first.cache()).isEqualTo(CacheStatus.MISS);

            // The tainted entry is not served: the query runs again, and is as tainted as before.
            SearchResult again = search(cluster, request);
            assertThat(again.cache()).isEqualTo(CacheStatus.REFRESHED);
            assertThat(again.tainted()).isTrue();
            assertThat(again.coverage()).isEqualTo(first.coverage());

            cluster.root().leafFaults().injectStall(0, InjectedStall.NONE).join();
            awaitTrue(() -> search(cluster, query().cache(false)).coverage().complete());

            // Refreshed with a complete result, which is then served from the cache. (The minimum
            // coverage is not part of the cache key: this waits for every partition, and shares the entry.)
            SearchResult refreshed = search(cluster, query().minCoverage(1.0));
            assertThat(refreshed.cache()).isEqualTo(CacheStatus.REFRESHED);
            assertThat(refreshed.tainted()).isFalse();
            SearchResult hit = search(cluster, request);
            assertThat(hit.cache()).isEqualTo(CacheStatus.HIT);
            assertThat(hit.tainted()).isFalse();
            assertThat(hit.hits()).isEqualTo(refreshed.hits());
            assertThat(hit.totalHits()).isEqualTo(refreshed.totalHits());
            // A differently spelt but equal query shares the entry; another k does not.
            assertThat(search(cluster, SearchRequest.builder("bravo  OR   alpha").k(20).exactTotalHits()).cache())
                    .isEqualTo(CacheStatus.HIT);
            assertThat(search(cluster, query().k(19)).cache()).isEqualTo(CacheStatus.MISS);

            assertThat(cluster.root().metrics().registry().get("hedgerow.cache.hits").functionCounter().count()).isEqualTo(2);
            assertThat(cluster.root().metrics().registry().get("hedgerow.cache.refreshed").functionCounter().count())
                    .isEqualTo(2);
        }
    }

    /**
     * A faceted search's tainted entry is treated as the hits': never served as complete, run again
     * while the leaf is stalled, and refreshed with complete counts once it answers, which a faceted
     * search of the same query is then served; a search of the same query without the facet has
     * its own entry.
     */
    @Test
    void aTaintedFacetedEntryIsRefreshedNotServedAndItsCountsComeBackComplete(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = unreplicated(data, fixedCutoff())) {
            Map<String, Aggregation> byId = Map.of("ids", Aggregation.Terms.of(IndexConfig.ID_FIELD, 600));
            SearchRequest.Builder faceted = query().k(0).aggs(byId).minCoverage(0.5);
            cluster.root().leafFaults().injectStall(0, STALLED).join();

            SearchResult first = search(cluster, faceted);
            assertThat(first.tainted()).isTrue();
            assertThat(first.cache()).isEqualTo(CacheStatus.MISS);
            long partialBuckets = ((AggregationResult.Terms) first.aggregations().get("ids")).buckets().size();
            assertThat(partialBuckets).isEqualTo(first.totalHits().value());

            SearchResult again = search(cluster, faceted);
            assertThat(again.cache()).as("a tainted faceted entry is run again, not served").isEqualTo(CacheStatus.REFRESHED);
            assertThat(again.tainted()).isTrue();

            cluster.root().leafFaults().injectStall(0, InjectedStall.NONE).join();
            awaitTrue(() -> search(cluster, query().cache(false)).coverage().complete());

            SearchResult refreshed = search(cluster, query().k(0).aggs(byId).minCoverage(1.0));
            assertThat(refreshed.cache()).isEqualTo(CacheStatus.REFRESHED);
            assertThat(refreshed.tainted()).isFalse();
            SearchResult hit = search(cluster, faceted);
            assertThat(hit.cache()).isEqualTo(CacheStatus.HIT);
            assertThat(hit.tainted()).isFalse();
            AggregationResult.Terms complete = (AggregationResult.Terms) hit.aggregations().get("ids");
            assertThat((long) complete.buckets().size()).as("every match counted, not the partial answer's")
                    .isEqualTo(hit.totalHits().value()).isGreaterThan(partialBuckets);
            assertThat(search(cluster, query().k(0).minCoverage(0.5)).cache()).as("without the facet: its own entry")
                    .isEqualTo(CacheStatus.MISS);
        }
    }

    @Test
    void aCanaryOnAStalledLeafGetsABackupCanaryOnTheOtherLeafAndNothingIsBlocklisted(@TempDir Path data) throws Exception {
        TailSettings tail = fixedCutoff().withCanaries(1)
                .withCanaryTimeout(TailSettings.defaults().canaryTimeout().withFixed(Duration.ofMillis(30)));
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("tail", IndexConfig.defaults(), TestData.documents(7, 600))
                .leaves(2).partitions(PARTITIONS).replicas(2)
                .defaultTimeout(Duration.ofSeconds(30))
                .faultInjection(true)
                .tail(tail)
                .start()) {
            cluster.root().leafFaults().injectStall(0, STALLED).join();
            String stalled = cluster.leaves().get(0).address();

            // The canary's partition is random; in a few queries the first canary lands on the stalled
            // leaf. (A first canary on the healthy leaf that takes over 2 ms on a loaded machine gets its
            // backup on the stalled one: that query shows nothing of what is tested here.)
            SearchResult hedged = null;
            for (int i = 0; i < 40 && hedged == null; i++) {
                SearchResult result = search(cluster, SearchRequest.builder("alpha OR q" + i).hedgeAfterMillis(2)
                        .explain(true));
                if (result.trace().stream().filter(t -> t.kind() == SubRequestTrace.Kind.CANARY).findFirst()
                        .filter(first -> first.leaf().equals(stalled)).isPresent()) {
                    hedged = result;
                }
            }
            assertThat(hedged).as("a first canary on the stalled leaf in 40 queries").isNotNull();
            assertThat(hedged.tainted()).isFalse();
            List<SubRequestTrace> canaries = hedged.trace().stream()
                    .filter(t -> t.kind() == SubRequestTrace.Kind.CANARY).toList();
            // The first canary is kept; the backup canary is another partition's first copy, on the other leaf.
            assertThat(canaries).hasSize(2);
            assertThat(canaries.get(0).leaf()).isEqualTo(stalled);
            assertThat(canaries.get(0).used()).isFalse();
            assertThat(canaries.get(1).leaf()).isNotEqualTo(stalled);
            assertThat(canaries.get(1).used()).isTrue();
            assertThat(canaries.get(1).partition()).isNotEqualTo(canaries.get(0).partition());
            assertThat(cluster.root().tail().blocklist().size()).isZero();
            assertThat(counter(cluster, "hedgerow.canary.resent").count()).isPositive();
        }
    }
}
