package io.hedgerow.root.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.merge.HitMerger.MergedHit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HitMergerTest {
    /** The classic order; the ids here are ASCII, whose UTF-16 and UTF-8 orders agree. */
    private static final Comparator<Hit> BY_SCORE_THEN_ID = Comparator.comparingDouble((Hit h) -> -h.getScore())
            .thenComparing(Hit::getId);

    private static SearchResponse partition(Object... scoreDocPairs) {
        SearchResponse.Builder response = SearchResponse.newBuilder();
        for (int i = 0; i < scoreDocPairs.length; i += 2) {
            int doc = (Integer) scoreDocPairs[i + 1];
            response.addHits(Hit.newBuilder().setId("d" + doc).setScore((Float) scoreDocPairs[i]).setDoc(doc));
        }
        return response.build();
    }

    @Test
    void takesTheTopKByScoreAcrossPartitions() {
        SearchResponse[] answers = {
                partition(3.0f, 1, 1.0f, 2),
                partition(2.5f, 7, 2.0f, 9),
                null,
                partition(4.0f, 3)
        };
        List<MergedHit> merged = HitMerger.merge(answers, 3);
        assertThat(merged).extracting(m -> m.hit().getId()).containsExactly("d3", "d1", "d7");
        assertThat(merged).extracting(MergedHit::partition).containsExactly(3, 0, 1);
    }

    @Test
    void breaksScoreTiesByIdWhateverThePartitionOrDocument() {
        SearchResponse[] answers = {
                partition(1.0f, 5, 1.0f, 8),
                partition(1.0f, 2),
                partition(2.0f, 1, 1.0f, 0)
        };
        List<MergedHit> merged = HitMerger.merge(answers, 10);
        assertThat(merged).extracting(h -> h.partition() + ":" + h.hit().getId())
                .containsExactly("2:d1", "2:d0", "1:d2", "0:d5", "0:d8");
    }

    @Test
    void comparesIdsInUtf8ByteOrderAsLuceneDoes() {
        String[] ids = {"a", "ab", "b", "\uE000", "\uFFFF", "\uD83C\uDF33", "\u00E9", "z"};
        for (String x : ids) {
            for (String y : ids) {
                int utf8 = Integer.signum(new org.apache.lucene.util.BytesRef(x).compareTo(new org.apache.lucene.util.BytesRef(y)));
                assertThat(Integer.signum(HitMerger.compareUtf8(x, y))).as(x + " vs " + y).isEqualTo(utf8);
            }
        }
    }

    @Test
    void returnsFewerThanKWhenThereAreFewerHits() {
        assertThat(HitMerger.merge(new SearchResponse[] {partition(1.0f, 1), null}, 10)).hasSize(1);
        assertThat(HitMerger.merge(new SearchResponse[] {null, null}, 10)).isEmpty();
    }

    @Test
    void agreesWithASortOfAllHitsOnRandomInputs() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            int partitions = 1 + random.nextInt(20);
            SearchResponse[] answers = new SearchResponse[partitions];
            List<Hit> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                if (random.nextInt(5) == 0) {
                    continue;
                }
                List<Hit> hits = new ArrayList<>();
                int count = random.nextInt(12);
                for (int doc = 0; doc < count; doc++) {
                    // Ids unique across partitions, in an order unrelated to the partition or doc number.
                    String id = Integer.toString(random.nextInt(1000), 36) + "-" + p + "-" + doc;
                    hits.add(Hit.newBuilder().setId(id).setScore(random.nextInt(4)).setDoc(random.nextInt(1000)).build());
                }
                hits.sort(BY_SCORE_THEN_ID);
                answers[p] = SearchResponse.newBuilder().addAllHits(hits).build();
                all.addAll(hits);
            }
            all.sort(BY_SCORE_THEN_ID);
            int k = 1 + random.nextInt(15);
            List<String> expected = all.stream().limit(k).map(Hit::getId).toList();
            assertThat(HitMerger.merge(answers, k)).extracting(m -> m.hit().getId())
                    .as("seed %d round %d", seed, round)
                    .containsExactlyElementsOf(expected);
        }
    }
}
