package io.hedgerow.root.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Filter;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.TermsFilter;
import io.hedgerow.leaf.index.SourceDocument;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classic (score) order is the same on replicas that number documents differently: the same
 * documents indexed in opposite orders (as replicas that took live writes may hold them) give the
 * same hits in the same order at each partition and through the root's merge, for queries where
 * most hits tie on their score.
 */
@Timeout(120)
class ScoreTieStabilityTest {
    private static final int PARTITIONS = 4;

    @TempDir
    Path dir;

    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            // Identical titles but every seventh: two scores per query word, each shared by many.
            fields.put("title", i % 7 == 0 ? "hedge hedge row" : "hedge row");
            fields.put("cat", i % 2 == 0 ? "even" : "odd");
            docs.add(new SourceDocument("d" + i, fields, i + 1));
        }
        return docs;
    }

    @Test
    void replicasIndexedInOtherOrdersAnswerAndMergeScoreTiesAlikeById() throws Exception {
        List<SourceDocument> docs = documents();
        List<SourceDocument> reversed = new ArrayList<>(docs.reversed());
        try (EquivalenceIndex first = EquivalenceIndex.build(dir.resolve("first"), docs, PARTITIONS);
                EquivalenceIndex second = EquivalenceIndex.build(dir.resolve("second"), reversed, PARTITIONS)) {
            List<SearchRequest> requests = List.of(
                    SearchRequest.newBuilder().setQuery("hedge").setK(10).build(),
                    SearchRequest.newBuilder().setQuery("row").setK(25).build(),
                    SearchRequest.newBuilder().setQuery("hedge row").setK(3).setFilter(Filter.newBuilder()
                            .setTerms(TermsFilter.newBuilder().setField("cat").addValues("odd"))).build());
            for (SearchRequest request : requests) {
                String context = request.getQuery() + " k=" + request.getK();
                SearchResponse[] a = first.searchAll(request);
                SearchResponse[] b = second.searchAll(request);
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(ids(a[p].getHitsList())).as(context + ", partition " + p)
                            .containsExactlyElementsOf(ids(b[p].getHitsList()))
                            .containsExactlyElementsOf(byScoreThenId(first, request, p));
                }
                // The root may take each partition's answer from either replica.
                SearchResponse[] mixed = new SearchResponse[PARTITIONS];
                for (int p = 0; p < PARTITIONS; p++) {
                    mixed[p] = p % 2 == 0 ? a[p] : b[p];
                }
                List<String> merged = mergedIds(a, request.getK());
                assertThat(merged).as(context).hasSize(request.getK())
                        .containsExactlyElementsOf(mergedIds(b, request.getK()))
                        .containsExactlyElementsOf(mergedIds(mixed, request.getK()))
                        .containsExactlyElementsOf(allByScoreThenId(first, request));
            }
        }
    }

    /** Partition p's top k as a search of every hit there, ordered by score and then id, gives it. */
    private static List<String> byScoreThenId(EquivalenceIndex index, SearchRequest request, int p) throws Exception {
        SearchRequest every = request.toBuilder().setK(1000).build();
        List<Hit> hits = new ArrayList<>(index.searchAll(every)[p].getHitsList());
        hits.sort(SCORE_THEN_ID);
        return ids(hits.subList(0, Math.min(request.getK(), hits.size())));
    }

    /** The top k over every partition's every hit, by score (as each partition scores) and then id. */
    private static List<String> allByScoreThenId(EquivalenceIndex index, SearchRequest request) throws Exception {
        List<Hit> hits = new ArrayList<>();
        for (SearchResponse answer : index.searchAll(request.toBuilder().setK(1000).build())) {
            hits.addAll(answer.getHitsList());
        }
        hits.sort(SCORE_THEN_ID);
        return ids(hits.subList(0, Math.min(request.getK(), hits.size())));
    }

    private static final Comparator<Hit> SCORE_THEN_ID = Comparator.comparingDouble((Hit h) -> -h.getScore())
            .thenComparing(Hit::getId); // ASCII ids: UTF-16 and UTF-8 orders agree

    private static List<String> mergedIds(SearchResponse[] answers, int k) {
        return HitMerger.merge(answers, k).stream().map(m -> m.hit().getId()).toList();
    }

    private static List<String> ids(List<Hit> hits) {
        return hits.stream().map(Hit::getId).toList();
    }
}
