package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.TermsAggregation;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A faceted search costs its query and its facets, and the leaf's expensive lane reads that whole
 * estimate: over real sockets and a real index, a broad query that runs as cheap work on its own
 * goes to the lane once it asks for an aggregation, with the expensive threshold set between the
 * two estimates (each aggregation reads a doc value of every matching document).
 */
@Timeout(60)
class FacetedSearchLaneTest {
    private static final String INDEX = "facets";
    private static final int PARTITIONS = 2;

    @TempDir
    static Path indexParent;

    private static PartitionStore store;

    private final List<LeafServer> leaves = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private long nextRequestId = 1_000;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(indexParent.resolve(INDEX), INDEX, PARTITIONS);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        leaves.forEach(LeafServer::close);
    }

    @Test
    void aBroadQueryGoesToTheExpensiveLaneOnceItAsksForAFacet() throws IOException {
        // First the estimates, on a leaf whose lane takes nothing this small.
        LeafServer measuring = start(LeafConfig.defaults(store.dir()).withWorkers(2));
        FrameSocket root = TestLeaves.root(measuring, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);
        SearchResponse plain = search(root, broad());
        SearchResponse faceted = search(root, faceted());
        long query = plain.getCost().getEstimate();
        long withFacet = faceted.getCost().getEstimate();
        assertThat(query).isPositive();
        assertThat(withFacet).as("the facet's doc-value reads of every match").isGreaterThan(query);
        assertThat(faceted.getAggsCount()).isEqualTo(1);
        assertThat(plain.getCost().getExpensive()).isFalse();
        assertThat(faceted.getCost().getExpensive()).isFalse();

        // Then a leaf whose lane starts between the two: the same query, faceted, runs there.
        LeafServer leaf = start(LeafConfig.defaults(store.dir()).withWorkers(2)
                .withScheduling(SchedulingConfig.defaults().withExpensiveCost(query + 1)));
        FrameSocket gated = TestLeaves.root(leaf, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);
        SearchResponse cheap = search(gated, broad());
        SearchResponse expensive = search(gated, faceted());

        assertThat(cheap.getCost().getExpensive()).as("the query alone: cheap").isFalse();
        assertThat(expensive.getCost().getExpensive()).as("the query and its facet: the lane").isTrue();
        assertThat(expensive.getAggsList()).singleElement()
                .satisfies(agg -> assertThat(agg.getName()).isEqualTo("ids"));
        assertThat(expensive.getTotalHits()).isEqualTo(cheap.getTotalHits());
        assertThat(leaf.counters().snapshot().expensiveSearches()).isEqualTo(1);
    }

    /** Every document of partition 0 has "the" in its body (the default config keeps stop words). */
    private SearchRequest broad() {
        return SearchRequest.newBuilder().setRequestId(nextRequestId++).setPartition(0)
                .setQuery("body:the").setK(5).build();
    }

    private SearchRequest faceted() {
        return broad().toBuilder().setRequestId(nextRequestId++).addAggs(Aggregation.newBuilder().setName("ids")
                .setField(IndexConfig.ID_FIELD).setTerms(TermsAggregation.newBuilder().setShardSize(10))).build();
    }

    private static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        root.send(Frame.newBuilder().setSearch(request).build());
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(request.getRequestId());
        assertThat(answer.getStatus()).as(answer.toString()).isEqualTo(Status.OK);
        return answer;
    }

    private LeafServer start(LeafConfig config) throws IOException {
        LeafServer leaf = LeafServer.start(config);
        leaves.add(leaf);
        return leaf;
    }
}
