package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.BoolFilter;
import io.hedgerow.common.wire.proto.Filter;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.RangeFilter;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.SortField;
import io.hedgerow.common.wire.proto.TermsFilter;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class SearchShapeTest {
    @TempDir
    Path dir;

    private PartitionSearcher open() throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("tag", FieldSpec.keyword(true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("title", "hedge " + "hawthorn ".repeat(1 + i % 5));
            doc.put("n", Integer.toString(i));
            if (i % 3 != 0) {
                doc.put("tag", i % 2 == 0 ? "even" : "odd");
            }
            docs.add(new SourceDocument("d" + i, doc, i + 1));
        }
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none()).build(store, "index", config, docs);
        return PartitionSearcher.open(IndexContext.of(store, store.readManifest()), 0);
    }

    private static SearchResponse search(PartitionSearcher searcher, SearchRequest request) throws Exception {
        return searcher.search(searcher.queryOf(request), request, null).build();
    }

    private static Map<String, Float> scores(SearchResponse response) {
        return response.getHitsList().stream().collect(Collectors.toMap(Hit::getId, Hit::getScore));
    }

    @Test
    void aFilterNarrowsTheHitsWithoutChangingTheirScores() throws Exception {
        try (PartitionSearcher searcher = open()) {
            SearchRequest plain = SearchRequest.newBuilder().setQuery("hawthorn").setK(100).build();
            SearchRequest filtered = plain.toBuilder().setFilter(Filter.newBuilder().setBool(BoolFilter.newBuilder()
                    .addMust(Filter.newBuilder().setRange(RangeFilter.newBuilder().setField("n").setGte("10").setLt("30")))
                    .addMustNot(Filter.newBuilder().setTerms(TermsFilter.newBuilder().setField("tag").addValues("odd")))))
                    .build();
            Map<String, Float> all = scores(search(searcher, plain));
            Map<String, Float> some = scores(search(searcher, filtered));
            assertThat(some.keySet()).hasSize(20 - 7) // 10..29, less the odd ones tagged (not multiples of 3)
                    .allMatch(id -> {
                        int n = Integer.parseInt(id.substring(1));
                        return n >= 10 && n < 30 && !(n % 3 != 0 && n % 2 == 1);
                    });
            some.forEach((id, score) -> assertThat(score).as(id).isEqualTo(all.get(id)));
        }
    }

    @Test
    void mustNotAloneKeepsEveryOtherDocumentAndExistsSeesDocValues() throws Exception {
        try (PartitionSearcher searcher = open()) {
            SearchRequest notTagged = SearchRequest.newBuilder().setQuery("hedge").setK(100).setFilter(Filter.newBuilder()
                    .setBool(BoolFilter.newBuilder().addMustNot(Filter.newBuilder().setExists("tag")))).build();
            assertThat(search(searcher, notTagged).getHitsList()).extracting(Hit::getId)
                    .allMatch(id -> Integer.parseInt(id.substring(1)) % 3 == 0).hasSize(17);
        }
    }

    @Test
    void refusesUnknownFieldsRangesOnKeywordsAndSortsOnTextNamingThem() throws Exception {
        try (PartitionSearcher searcher = open()) {
            SearchRequest base = SearchRequest.newBuilder().setQuery("hedge").setK(10).build();
            assertThatThrownBy(() -> search(searcher, base.toBuilder().setFilter(Filter.newBuilder()
                    .setTerms(TermsFilter.newBuilder().setField("colour").addValues("red"))).build()))
                    .isInstanceOf(BadQueryException.class).hasMessageContaining("field 'colour' is not in the index");
            assertThatThrownBy(() -> search(searcher, base.toBuilder().setFilter(Filter.newBuilder()
                    .setRange(RangeFilter.newBuilder().setField("tag").setGte("a"))).build()))
                    .isInstanceOf(BadQueryException.class).hasMessageContaining("range on keyword field 'tag'");
            assertThatThrownBy(() -> search(searcher, base.toBuilder().setFilter(Filter.newBuilder()
                    .setTerms(TermsFilter.newBuilder().setField("n").addValues("many"))).build()))
                    .isInstanceOf(BadQueryException.class).hasMessageContaining("field 'n': 'many'");
            assertThatThrownBy(() -> search(searcher, base.toBuilder().addSort(SortField.newBuilder().setField("title")).build()))
                    .isInstanceOf(BadQueryException.class).hasMessageContaining("sort on text field 'title'");
        }
    }

    @Test
    void sortsByAFieldWithMissingValuesLastEitherWayAndTheIdLast() throws Exception {
        try (PartitionSearcher searcher = open()) {
            for (boolean descending : new boolean[] {false, true}) {
                SearchRequest sorted = SearchRequest.newBuilder().setQuery("hedge").setK(100)
                        .addSort(SortField.newBuilder().setField("tag").setDescending(descending)).build();
                List<Hit> hits = search(searcher, sorted).getHitsList();
                assertThat(hits).hasSize(50);
                assertThat(hits.subList(33, 50)).as("the 17 untagged last").allMatch(hit -> hit.getSortValues(0).getMissing());
                assertThat(hits.get(0).getSortValues(0).getKeyword().toStringUtf8()).isEqualTo(descending ? "odd" : "even");
                assertThat(hits.get(0).getSortValues(1).getKeyword().toStringUtf8()).isEqualTo(hits.get(0).getId());
            }
        }
    }

    /**
     * A multi-valued field sorts by its lowest value ascending and its highest descending (found by
     * ClusterSearchEquivalenceTest: descending sorts used the lowest value, Lucene's default).
     */
    @Test
    void multiValuedFieldsSortByTheirLowestValueAscendingAndTheirHighestDescending() throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("tag", FieldSpec.keyword(true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
        List<SourceDocument> docs = List.of(
                new SourceDocument("a", Map.of("title", "hedge", "n", List.of("1", "9"), "tag", List.of("b", "y")), 1),
                new SourceDocument("b", Map.of("title", "hedge", "n", "5", "tag", "m"), 2),
                new SourceDocument("c", Map.of("title", "hedge", "n", List.of("3", "4"), "tag", List.of("a", "c")), 3));
        PartitionStore store = new PartitionStore(dir.resolve("multi"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none()).build(store, "multi", config, docs);
        try (PartitionSearcher searcher = PartitionSearcher.open(IndexContext.of(store, store.readManifest()), 0)) {
            assertThat(sortedBy(searcher, "n", false)).containsExactly("a:1", "c:3", "b:5");
            assertThat(sortedBy(searcher, "n", true)).containsExactly("a:9", "b:5", "c:4");
            assertThat(sortedBy(searcher, "tag", false)).containsExactly("c:a", "a:b", "b:m");
            assertThat(sortedBy(searcher, "tag", true)).containsExactly("a:y", "b:m", "c:c");
        }
    }

    /** Each hit as "id:its sort value" for a sort by {@code field}. */
    private static List<String> sortedBy(PartitionSearcher searcher, String field, boolean descending) throws Exception {
        SearchRequest request = SearchRequest.newBuilder().setQuery("hedge").setK(10)
                .addSort(SortField.newBuilder().setField(field).setDescending(descending)).build();
        return search(searcher, request).getHitsList().stream().map(hit -> hit.getId() + ":" + switch (hit.getSortValues(0)
                .getKindCase()) {
            case SORTABLE -> Long.toString(hit.getSortValues(0).getSortable());
            default -> hit.getSortValues(0).getKeyword().toStringUtf8();
        }).toList();
    }
}
