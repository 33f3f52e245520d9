package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.Filter;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.HedgerowClient;
import io.hedgerow.api.Hit;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SortField;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.api.TotalHits;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.Partitioner;
import io.hedgerow.leaf.index.Routing;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@link HedgerowClient} does, whether in process ({@link EmbeddedClientContractTest})
 * or over HTTP ({@link RemoteClientContractTest}): run against a real cluster on loopback (two
 * leaves, eight partitions of a real Lucene index with a routing key, two replicas, the HTTP API
 * on a free port). The assertions are those the embedded client's tests make of it (README
 * example, routing, merge, errors); each subclass gives the client under test, and the results
 * are also compared with the root's own in-process answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class HedgerowClientContract {
    static final List<String> LANGUAGES = List.of("de", "fr", "en", "it", "nl");
    static final int PARTITIONS = 8;
    static final Routing ROUTING = new Routing("lang", 2);

    private Path data;
    EmbeddedCluster cluster;
    private HedgerowClient client;

    /** The client under test, of a cluster that is running. */
    abstract HedgerowClient clientOf(EmbeddedCluster cluster);

    /** Frees what {@link #clientOf} made. */
    void closeClient(HedgerowClient client) throws Exception {
    }

    @BeforeAll
    void startCluster() throws Exception {
        data = Files.createTempDirectory("client-contract");
        cluster = EmbeddedCluster.builder(data).documents("contract", config(), documents())
                .leaves(2).partitions(PARTITIONS).replicas(2).http(0).start();
        client = clientOf(cluster);
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (client != null) {
            closeClient(client);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static IndexConfig config() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, false));
        fields.put("tags", FieldSpec.keyword(true));
        return new IndexConfig(null, fields, IndexConfig.UnknownFields.REJECT, List.of("title", "body"), "body", ROUTING);
    }

    /**
     * 300 documents, every one with "common" in its title and body, "lang" each language in turn, "n"
     * its number; "tags" of three values (heron, wader, its number) in those with a heron in the
     * title, of one in the other even ones, none in the rest.
     */
    static List<SourceDocument> documents() {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("title", "common title " + i + (i % 7 == 0 ? " heron" : ""));
            fields.put("body", "common body of document " + i + (i % 3 == 0 ? " with a heron by the river" : ""));
            fields.put("lang", LANGUAGES.get(i % LANGUAGES.size()));
            fields.put("n", Integer.toString(i));
            if (i % 7 == 0) {
                fields.put("tags", List.of("heron", "wader", Integer.toString(i)));
            } else if (i % 2 == 0) {
                fields.put("tags", "even");
            }
            documents.add(new SourceDocument("d-" + i, fields, i + 1));
        }
        return documents;
    }

    @Test
    void findsTheBestHitsWithTheirStoredFieldsAndSnippets() {
        SearchResult result = client.search(SearchRequest.builder("heron").k(5).build()).join();

        assertThat(result.hits()).hasSize(5).allSatisfy(hit -> {
            assertThat(hit.id()).startsWith("d-");
            assertThat(hit.fields()).containsKeys("title", "lang").doesNotContainKey("body");
            assertThat(hit.snippet()).contains("<b>heron</b>");
            assertThat(hit.partition()).isBetween(0, PARTITIONS - 1);
        });
        assertThat(result.hits()).extracting(Hit::score).isSortedAccordingTo((a, b) -> Float.compare(b, a));
        assertThat(result.totalHits()).isEqualTo(new TotalHits(100 + 43 - 15, TotalHits.Relation.EQUAL_TO));
        assertThat(result.tainted()).isFalse();
        assertThat(result.coverage().partitionsTotal()).isEqualTo(PARTITIONS);
        assertThat(result.coverage().docsFraction()).isEqualTo(1.0);
        assertThat(result.tookNanos()).isPositive();
    }

    @Test
    void answersAsTheRootDoesInProcess() {
        for (SearchRequest request : List.of(
                SearchRequest.builder("common").k(20).cache(false).build(),
                SearchRequest.builder("heron river").k(7).snippets(false).cache(false).build(),
                SearchRequest.builder("title:heron OR lang:fr").k(50).exactTotalHits().cache(false).build(),
                SearchRequest.builder("\"heron by the river\"").k(3).routing("it").cache(false).build())) {
            assertAnswersAsTheRootInProcess(request);
        }
    }

    @Test
    void filtersSortsAndPagesAsTheRootDoesInProcess() {
        Filter germanBelow100OrFrench = new Filter.Bool(List.of(new Filter.Range("n", null, null, null, "200")),
                List.of(Filter.term("lang", "de"), Filter.terms("lang", List.of("fr", "xx"))),
                List.of(new Filter.Range("n", "100", null, "149", null)));
        List<SearchRequest> requests = List.of(
                SearchRequest.builder("common").filter(germanBelow100OrFrench).k(30).cache(false).build(),
                SearchRequest.builder("heron").filter(Filter.exists("n")).sort(List.of(SortField.desc("n"))).k(12)
                        .cache(false).build(),
                SearchRequest.builder("heron").sort(List.of(SortField.desc(SortField.SCORE), SortField.asc("lang")))
                        .k(9).cache(false).build(),
                SearchRequest.builder("common").sort(List.of(SortField.asc("lang"), SortField.desc("n"))).from(7).k(5)
                        .cache(false).build(),
                SearchRequest.builder("heron").lang("de").k(5).cache(false).build(),
                SearchRequest.builder("heron").langs(List.of("fr", "de")).k(5).cache(false).build(),
                SearchRequest.builder("heron").lang(SearchRequest.ALL_LANGUAGES).k(5).cache(false).build());
        for (SearchRequest request : requests) {
            assertAnswersAsTheRootInProcess(request);
        }

        SearchRequest firstPage = requests.get(1);
        List<Hit> first = cluster.client().search(firstPage).join().hits();
        SearchRequest nextPage = firstPage.toBuilder().searchAfter(first.get(first.size() - 1).sort()).build();
        SearchResult next = assertAnswersAsTheRootInProcess(nextPage);

        assertThat(next.hits()).isNotEmpty().allSatisfy(hit -> {
            assertThat(hit.sort()).hasSize(2);
            assertThat((Long) hit.sort().get(0)).isLessThan((Long) first.get(first.size() - 1).sort().get(0));
        });
        assertThat(client.search(requests.get(3)).join().hits()).allSatisfy(hit -> assertThat(hit.score()).isNaN());
    }

    /** Asks {@code request} of the client under test and of the root in process, and compares the answers. */
    private SearchResult assertAnswersAsTheRootInProcess(SearchRequest request) {
        SearchResult actual = client.search(request).join();
        SearchResult expected = cluster.client().search(request).join();

        assertThat(actual.hits()).as(request.toString()).containsExactlyElementsOf(expected.hits());
        assertThat(actual.totalHits()).as(request.toString()).isEqualTo(expected.totalHits());
        assertThat(actual.coverage().partitionsTotal()).isEqualTo(expected.coverage().partitionsTotal());
        assertThat(actual.coverage().partitionsAnswered()).isEqualTo(expected.coverage().partitionsAnswered());
        assertThat(actual.coverage().docsFraction()).isCloseTo(expected.coverage().docsFraction(), within(1e-6));
        assertThat(actual.coverage().degraded()).isEqualTo(expected.coverage().degraded());
        assertThat(actual.degraded()).isEqualTo(expected.degraded());
        assertThat(actual.errors()).isEqualTo(expected.errors());
        assertThat(actual.cache()).isEqualTo(expected.cache()).isEqualTo(CacheStatus.OFF);
        return actual;
    }

    @Test
    void leavesOutStoredFieldsAndSnippetsWhenAsked() {
        SearchResult result = client.search(SearchRequest.builder("heron").k(3).snippets(false).storedFields(false)
                .build()).join();

        assertThat(result.hits()).hasSize(3).allSatisfy(hit -> {
            assertThat(hit.fields()).isEmpty();
            assertThat(hit.snippet()).isNull();
        });
    }

    @Test
    void returnsOnlyTheFieldsAListNames() {
        SearchResult result = client.search(SearchRequest.builder("heron").k(3).fields(List.of("lang")).build()).join();
        SearchResult none = client.search(SearchRequest.builder("heron").k(3).fields(List.of()).build()).join();

        assertThat(result.hits()).hasSize(3).allSatisfy(hit -> {
            assertThat(hit.fields()).containsOnlyKeys("lang");
            assertThat(hit.snippet()).contains("<b>heron</b>");
        });
        assertThat(none.hits()).hasSize(3).allSatisfy(hit -> assertThat(hit.fields()).isEmpty());
    }

    @Test
    void returnsEveryValueOfAMultiValuedFieldAndOneValueAsAString() {
        SearchRequest request = SearchRequest.builder("title:heron OR lang:de").k(40).fields(List.of("title", "tags"))
                .sort(List.of(SortField.asc("n"))).cache(false).build();
        SearchResult result = assertAnswersAsTheRootInProcess(request);

        assertThat(result.hits()).hasSize(40).allSatisfy(hit -> {
            int n = Integer.parseInt(hit.id().substring("d-".length()));
            List<String> tags = n % 7 == 0 ? List.of("heron", "wader", Integer.toString(n)) : n % 2 == 0 ? List.of("even")
                    : List.of();
            assertThat(hit.values("tags")).as(hit.id()).isEqualTo(tags);
            assertThat(hit.fields().get("tags")).as("the first value, for code that reads one string")
                    .isEqualTo(tags.isEmpty() ? null : tags.get(0));
            assertThat(hit.multiValues()).as(hit.id()).isEqualTo(tags.size() > 1 ? Map.of("tags", tags) : Map.of());
            assertThat(hit.values("title")).hasSize(1);
        });
        assertThat(result.hits()).anySatisfy(hit -> assertThat(hit.values("tags")).hasSize(3))
                .anySatisfy(hit -> assertThat(hit.values("tags")).containsExactly("even"));
    }

    @Test
    void highlightsTheFieldsAskedWithTheTagsAsked() {
        SearchResult result = client.search(SearchRequest.builder("heron").k(3).highlight(new io.hedgerow.api.Highlight(
                Map.of("body", new io.hedgerow.api.Highlight.Field(2, 40)), "[", "]")).build()).join();

        assertThat(result.hits()).hasSize(3).allSatisfy(hit -> {
            assertThat(hit.highlight()).containsOnlyKeys("body");
            assertThat(hit.highlight().get("body")).singleElement().asString().contains("[heron]");
            assertThat(hit.snippet()).contains("<b>heron</b>");
        });
        assertThat(client.search(SearchRequest.builder("heron").k(1).build()).join().hits().getFirst().highlight()).isNull();
    }

    @Test
    void explainsEverySubRequestAndTheLeavesItChoseAmong() {
        SearchResult result = client.search(SearchRequest.builder("common heron").explain(true).cache(false).build()).join();
        List<String> leaves = cluster.leaves().stream().map(LeafServer::address).toList();

        assertThat(result.trace()).isNotEmpty().allSatisfy(sub -> assertThat(leaves).contains(sub.leaf()));
        assertThat(result.trace()).filteredOn(sub -> sub.partition() >= 0).extracting(SubRequestTrace::partition)
                .containsAll(IntStream.range(0, PARTITIONS).boxed().toList());
        assertThat(result.trace()).extracting(SubRequestTrace::kind).contains(SubRequestTrace.Kind.FETCH);
        assertThat(result.trace()).filteredOn(SubRequestTrace::used).isNotEmpty();
        assertThat(result.leaves()).extracting(leaf -> leaf.leaf()).containsExactlyInAnyOrderElementsOf(leaves);
        assertThat(result.leaves()).allSatisfy(leaf -> assertThat(leaf.state()).isEqualTo("in_rotation"));
    }

    @Test
    void aRoutingValueAsksOnlyItsPartitionsAndFindsEveryDocumentOfIt() {
        int[] german = new Partitioner(PARTITIONS, ROUTING).partitionsOf("de");

        SearchResult routed = client.search(SearchRequest.builder("lang:de").routing("de").k(100).cache(false)
                .build()).join();

        assertThat(routed.totalHits().value()).isEqualTo(60);
        assertThat(routed.hits()).hasSize(60).allSatisfy(hit -> assertThat(german).contains(hit.partition()));
        assertThat(routed.coverage().partitionsTotal()).isEqualTo(2);
        assertThat(routed.coverage().partitionsAnswered()).isEqualTo(2);
    }

    @Test
    void theSameSearchAgainComesFromTheCache() {
        SearchRequest request = SearchRequest.builder("heron AND lang:nl").k(4).build();

        SearchResult first = client.search(request).join();
        SearchResult second = client.search(request).join();

        assertThat(first.cache()).isEqualTo(CacheStatus.MISS);
        assertThat(second.cache()).isEqualTo(CacheStatus.HIT);
        assertThat(second.hits()).isEqualTo(first.hits());
    }

    @Test
    void aSearchThatAllowsStaleCopiesBypassesTheCache() {
        SearchRequest request = SearchRequest.builder("heron AND lang:de").k(4).allowStale(true).build();

        SearchResult first = client.search(request).join();
        SearchResult second = client.search(request).join();

        assertThat(second.cache()).as("allow_stale reaches the root, which skips the cache").isEqualTo(CacheStatus.OFF);
        assertThat(second.hits()).isEqualTo(first.hits());
        assertThat(second.degraded()).as("every replica in sync: nothing stale read").isFalse();
    }

    @Test
    void takesEverySettingOfTheRequest() {
        List<SearchRequest> requests = List.of(
                SearchRequest.builder("heron").hedge(HedgeMode.TIED).priority(QueryPriority.BATCH).cache(false).build(),
                SearchRequest.builder("heron").hedgeAfterMillis(50).minCoverage(1.0).timeoutMillis(4000).cache(false).build(),
                SearchRequest.builder("heron").hedge(HedgeMode.OFF).totalHitsThreshold(1).k(1).cache(false).build());

        List<SearchResult> results = requests.stream().map(request -> client.search(request).join()).toList();

        assertThat(results).allSatisfy(result -> assertThat(result.tainted()).isFalse());
        assertThat(results.get(0).hits()).hasSize(10);
        assertThat(results.get(2).hits()).hasSize(1);
        assertThat(results.get(2).totalHits().relation()).isEqualTo(TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO);
    }

    @Test
    void aMalformedQueryFailsAsABadQueryWithTheRootsMessage() {
        SearchRequest request = SearchRequest.of("title:(heron");
        String expected = failure(() -> cluster.client().search(request).join()).getMessage();

        SearchException failure = failure(() -> client.search(request).join());

        assertThat(failure.kind()).isEqualTo(SearchException.Kind.BAD_QUERY);
        assertThat(failure.getMessage()).isEqualTo(expected);
        assertThatThrownBy(() -> client.search("title:(heron")).isInstanceOf(SearchException.class)
                .hasMessage(expected);
    }

    @Test
    void runsManySearchesAtOnceWithoutBlocking() {
        List<CompletableFuture<SearchResult>> futures = IntStream.range(0, 40)
                .mapToObj(i -> client.search(SearchRequest.builder("common " + LANGUAGES.get(i % 5) + " " + i)
                        .cache(false).build()))
                .toList();

        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();

        assertThat(futures).allSatisfy(future -> assertThat(future.join().hits()).hasSize(10));
    }

    @Test
    void theBlockingSearchReturnsTheResult() {
        SearchResult result = client.search("heron");

        assertThat(result.hits()).hasSize(SearchRequest.DEFAULT_K);
        assertThat(result.tainted()).isFalse();
    }

    private static SearchException failure(Runnable search) {
        try {
            search.run();
        } catch (CompletionException e) {
            if (e.getCause() instanceof SearchException searchException) {
                return searchException;
            }
            throw e;
        }
        throw new AssertionError("expected the search to fail");
    }
}
