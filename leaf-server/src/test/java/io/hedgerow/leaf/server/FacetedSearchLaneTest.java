package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.TermsAggregation;
import io.hedgerow.leaf.index.IndexConfig;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.hedgerowIndex(INDEX, PARTITIONS);

    @Test
    void aBroadQueryGoesToTheExpensiveLaneOnceItAsksForAFacet() throws IOException {
        // First the estimates, on a leaf whose lane takes nothing this small.
        LeafServer measuring = leaves.start(leaves.config().withWorkers(2));
        FrameSocket root = leaves.root(measuring);
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
        LeafServer leaf = leaves.start(leaves.config().withWorkers(2)
                .withScheduling(SchedulingConfig.defaults().withExpensiveCost(query + 1)));
        FrameSocket gated = leaves.root(leaf);
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
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(0)
                .setQuery("body:the").setK(5).build();
    }

    private SearchRequest faceted() {
        return broad().toBuilder().setRequestId(leaves.nextRequestId()).addAggs(Aggregation.newBuilder().setName("ids")
                .setField(IndexConfig.ID_FIELD).setTerms(TermsAggregation.newBuilder().setShardSize(10))).build();
    }

    private static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        SearchResponse answer = RealLeaves.search(root, request);
        assertThat(answer.getStatus()).as(answer.toString()).isEqualTo(Status.OK);
        return answer;
    }
}
