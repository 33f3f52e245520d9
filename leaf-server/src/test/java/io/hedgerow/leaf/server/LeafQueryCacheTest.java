package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.metrics.PrometheusText;
import io.hedgerow.common.metrics.PrometheusText.Family;
import io.hedgerow.common.wire.proto.Filter;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.TermsFilter;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.QueryCacheSettings;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --query-cache}: with it on, a recurring filter is cached in Lucene's query cache (shown on
 * the leaf's /metrics) and answered as without it, also after live writes change what it matches
 * on a segment whose matches are cached; with it off, the leaf has no cache and no such meters.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafQueryCacheTest {
    private static final String INDEX = "cached";
    /** One partition: every document, built or written, is in it. */
    private static final int PARTITIONS = 1;
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** On, caching segments of any size: the test index has 40 documents. */
    private static final QueryCacheSettings ON = new QueryCacheSettings(true, 100, 4L << 20, 0);

    @TempDir
    Path dir;

    private final List<Socket> sockets = new ArrayList<>();
    private final List<LeafServer> leaves = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(PATIENCE).build();
    private long nextRequestId = 100;

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        for (LeafServer leaf : leaves) {
            leaf.close();
        }
        http.close();
    }

    @Test
    void aRecurringFilterIsCachedAndAnsweredAsWithoutTheCache() throws Exception {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        LeafServer cached = start(store, ON);
        LeafServer uncached = start(store, QueryCacheSettings.off());
        FrameSocket toCached = TestLeaves.root(cached, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);
        FrameSocket toUncached = TestLeaves.root(uncached, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);

        SearchResponse without = search(toUncached);
        List<SearchResponse> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(search(toCached));
        }

        assertThat(ids(without)).containsExactlyInAnyOrderElementsOf(built());
        for (SearchResponse answer : answers) {
            assertThat(answer.getHitsList()).as("the same hits, scores and order").isEqualTo(without.getHitsList());
            assertThat(answer.getTotalHits()).isEqualTo(without.getTotalHits());
        }
        Map<String, Family> meters = scrape(cached);
        // Lucene's policy caches a terms filter on its second use; the third finds it.
        assertThat(value(meters, "hedgerow_leaf_query_cache_cached_total", Map.of())).isGreaterThanOrEqualTo(1);
        assertThat(value(meters, "hedgerow_leaf_query_cache_entries", Map.of())).isGreaterThanOrEqualTo(1);
        assertThat(value(meters, "hedgerow_leaf_query_cache_lookups_total", Map.of("outcome", "hit")))
                .isGreaterThanOrEqualTo(1);
        assertThat(value(meters, "hedgerow_leaf_query_cache_memory_bytes", Map.of())).isPositive();
        assertThat(scrape(uncached).keySet()).as("no cache, no cache meters")
                .noneMatch(name -> name.startsWith("hedgerow_leaf_query_cache"));
    }

    @Test
    void answersFollowLiveWritesThatChangeACachedFiltersMatches() throws Exception {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        LeafServer leaf = start(store, ON);
        FrameSocket root = TestLeaves.root(leaf, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);
        // The first write moves the partition to its live copy: its segment is cached from here.
        assertThat(write(root, LeafWritesTest.upsert("new-1", "a heron on the brook")).getResults(0).getOutcome())
                .isEqualTo(WriteOutcome.CREATED);
        Set<String> expected = new TreeSet<>(built());
        expected.add("new-1");
        for (int i = 0; i < 3; i++) {
            assertThat(ids(search(root))).containsExactlyInAnyOrderElementsOf(expected);
        }
        double hitsBefore = value(scrape(leaf), "hedgerow_leaf_query_cache_lookups_total", Map.of("outcome", "hit"));
        assertThat(hitsBefore).as("the filter's matches are cached").isGreaterThanOrEqualTo(1);

        // doc-0 (the meadow by the blackbird) no longer matches; doc-2 (the blackbird by the hazel) now does.
        assertThat(write(root, LeafWritesTest.upsert("doc-0", "the hazel by the hawthorn")).getResults(0).getOutcome())
                .isEqualTo(WriteOutcome.UPDATED);
        assertThat(write(root, LeafWritesTest.upsert("doc-2", "the brook by the hazel")).getResults(0).getOutcome())
                .isEqualTo(WriteOutcome.UPDATED);
        expected.remove("doc-0");
        expected.add("doc-2");

        assertThat(ids(search(root))).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(value(scrape(leaf), "hedgerow_leaf_query_cache_lookups_total", Map.of("outcome", "hit")))
                .as("the old segment's cached matches were used, its deletions applied over them")
                .isGreaterThan(hitsBefore);
    }

    /** The built documents whose body says meadow or brook: doc-i for i % 5 in {0, 1, 3} (TestLeaves). */
    private static Set<String> built() {
        return IntStream.range(0, 40).filter(i -> i % 5 == 0 || i % 5 == 1 || i % 5 == 3)
                .mapToObj(i -> "doc-" + i).collect(Collectors.toCollection(TreeSet::new));
    }

    private LeafServer start(PartitionStore store, QueryCacheSettings cache) throws IOException {
        LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withQueryCache(cache));
        leaves.add(leaf);
        return leaf;
    }

    /** Every document about a meadow or a brook, found by a terms filter (Lucene caches it once it recurs). */
    private SearchResponse search(FrameSocket root) throws IOException {
        long id = nextRequestId++;
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(id).setPartition(0)
                .setQuery("meadow brook hawthorn").setK(100).setTotalHitsThreshold(1000)
                .setFilter(Filter.newBuilder().setTerms(TermsFilter.newBuilder().setField("body")
                        .addValues("meadow").addValues("brook")))).build());
        Frame answer = root.receive();
        assertThat(answer.getResult().getRequestId()).isEqualTo(id);
        assertThat(answer.getResult().getStatus()).as(answer.getResult().getError()).isEqualTo(Status.OK);
        return answer.getResult();
    }

    private WriteResponse write(FrameSocket root, WriteOp op) throws IOException {
        long id = nextRequestId++;
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(id).setPartition(0)
                .setPrimary(true).setWaitForRefresh(true).addOps(op)).build());
        Frame answer = root.receive();
        assertThat(answer.getWriteResult().getRequestId()).isEqualTo(id);
        assertThat(answer.getWriteResult().getError()).isEmpty();
        return answer.getWriteResult();
    }

    private static List<String> ids(SearchResponse response) {
        return response.getHitsList().stream().map(Hit::getId).toList();
    }

    private Map<String, Family> scrape(LeafServer leaf) throws Exception {
        var response = http.send(HttpRequest.newBuilder(URI.create("http://" + leaf.httpAddress() + "/metrics"))
                .timeout(PATIENCE).GET().build(), BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return PrometheusText.parse(response.body());
    }

    private static double value(Map<String, Family> families, String sample, Map<String, String> labels) {
        return families.values().stream().flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(sample) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(PrometheusText.Sample::value).findFirst()
                .orElseThrow(() -> new AssertionError(sample + labels + " not in " + families.keySet()));
    }
}
