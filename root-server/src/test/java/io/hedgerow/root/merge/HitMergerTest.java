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
    void breaksScoreTiesByPartitionThenByDocument() {
        SearchResponse[] answers = {
                partition(1.0f, 5, 1.0f, 8),
                partition(1.0f, 2),
                partition(2.0f, 1, 1.0f, 0)
        };
        List<MergedHit> merged = HitMerger.merge(answers, 10);
        assertThat(merged).extracting(h -> h.partition() + ":" + h.hit().getId())
                .containsExactly("2:d1", "0:d5", "0:d8", "1:d2", "2:d0");
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
            List<long[]> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                if (random.nextInt(5) == 0) {
                    continue;
                }
                List<float[]> hits = new ArrayList<>();
                int count = random.nextInt(12);
                for (int doc = 0; doc < count; doc++) {
                    hits.add(new float[] {random.nextInt(4), random.nextInt(1000)});
                }
                hits.sort(Comparator.<float[]>comparingDouble(h -> -h[0]).thenComparingDouble(h -> h[1]));
                SearchResponse.Builder answer = SearchResponse.newBuilder();
                for (float[] h : hits) {
                    answer.addHits(Hit.newBuilder().setId(p + ":" + (int) h[1]).setScore(h[0]).setDoc((int) h[1]));
                    all.add(new long[] {(long) h[0], p, (long) h[1]});
                }
                answers[p] = answer.build();
            }
            all.sort(Comparator.<long[]>comparingLong(h -> -h[0]).thenComparingLong(h -> h[1]).thenComparingLong(h -> h[2]));
            int k = 1 + random.nextInt(15);
            List<String> expected = all.stream().limit(k).map(h -> h[1] + ":" + h[2]).toList();
            assertThat(HitMerger.merge(answers, k)).extracting(m -> m.hit().getId())
                    .as("seed %d round %d", seed, round)
                    .containsExactlyElementsOf(expected);
        }
    }
}
