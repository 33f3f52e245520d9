package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.Await;
import io.micrometer.core.instrument.Gauge;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root's cost book is keyed by the query alone, so a search with aggregations, whose leaves
 * count the aggregations' reads in their estimate, must not teach it: a plain search of the same
 * query would then get the faceted one's hint and go to the expensive lane. Nor a search in
 * languages, which searches other fields (every copy, with {@code *}).
 */
@Timeout(120)
class CostBookAggregationsTest {
    @Test
    void aSearchWithAggregationsTeachesTheCostBookNothingAndAPlainOneDoes(@TempDir Path data) throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("tags", FieldSpec.keyword(true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            docs.add(new SourceDocument("d" + i, Map.of("title", "alpha " + (i % 2 == 0 ? "bravo" : "charlie"),
                    "tags", "t" + i % 5), 1));
        }
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data).documents("costs", config, docs)
                .leaves(2).partitions(4).replicas(1).start()) {
            Gauge learnt = cluster.root().metrics().registry().get("hedgerow.costs.queries").gauge();
            SearchResult faceted = cluster.client().search(SearchRequest.builder("alpha")
                    .aggs(Map.of("tags", Aggregation.Terms.of("tags", 5))).build()).join();
            assertThat(faceted.aggregations()).containsKey("tags");

            cluster.client().search(SearchRequest.builder("bravo").build()).join();
            Await.until("the cost of bravo learnt", Duration.ofSeconds(30), () -> learnt.value() >= 1);
            cluster.client().search(SearchRequest.builder("charlie").build()).join();
            Await.until("the cost of charlie learnt", Duration.ofSeconds(30), () -> learnt.value() >= 2);
            // The faceted search ended before both plain ones began: had it taught the book, it would hold 3.
            assertThat(learnt.value()).as("queries learnt: bravo and charlie, not the faceted alpha").isEqualTo(2);
        }
    }

    @Test
    void aSearchInOneOrEveryLanguageTeachesTheCostBookNothing(@TempDir Path data) throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            docs.add(new SourceDocument("d" + i, Map.of("title", "alpha " + (i % 2 == 0 ? "bravo" : "charlie"),
                    "lang", i % 2 == 0 ? "de" : "fr"), 1));
        }
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data).documents("costs", config, docs)
                .leaves(2).partitions(4).replicas(1).start()) {
            Gauge learnt = cluster.root().metrics().registry().get("hedgerow.costs.queries").gauge();
            assertThat(cluster.client().search(SearchRequest.builder("alpha").lang("*").build()).join().hits()).isNotEmpty();
            assertThat(cluster.client().search(SearchRequest.builder("alpha").lang("de").build()).join().hits()).isNotEmpty();

            cluster.client().search(SearchRequest.builder("bravo").build()).join();
            Await.until("the cost of bravo learnt", Duration.ofSeconds(30), () -> learnt.value() >= 1);
            // The searches in languages ended before the plain one began: had they taught the book, it would hold 2.
            assertThat(learnt.value()).as("queries learnt: bravo, not alpha in its languages").isEqualTo(1);
        }
    }
}
