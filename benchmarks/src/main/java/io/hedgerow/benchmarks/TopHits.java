package io.hedgerow.benchmarks;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The merged top k of a query's per-partition answers, as the root merges them: by score, ties by
 * partition, then by doc. Stateless; the ceiling's own small copy so it does not depend on the root's
 * internals, which move between packages.
 */
final class TopHits {
    /** One winning hit: where it is and the id its fetch looks it up by. */
    record Winner(int partition, String id, float score) {
    }

    private static final Comparator<Winner> BEST_FIRST = Comparator.comparing(Winner::score).reversed()
            .thenComparingInt(Winner::partition);

    private TopHits() {
    }

    /**
     * The best {@code k} hits of {@code answers} (each one partition's answer, its hits in rank order),
     * best first.
     *
     * @throws IllegalArgumentException when k is below 1
     */
    static List<Winner> merge(List<SearchResponse.Builder> answers, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k: " + k + " (expected: >= 1)");
        }
        // A bounded heap, worst on top: k log k per hit at most, nothing sorted that cannot win.
        record Candidate(Winner winner, int doc) {
        }
        Comparator<Candidate> best = Comparator.comparing(Candidate::winner, BEST_FIRST)
                .thenComparingInt(Candidate::doc);
        PriorityQueue<Candidate> heap = new PriorityQueue<>(k + 1, best.reversed());
        for (SearchResponse.Builder answer : answers) {
            for (Hit hit : answer.getHitsList()) {
                heap.add(new Candidate(new Winner(answer.getPartition(), hit.getId(), hit.getScore()), hit.getDoc()));
                if (heap.size() > k) {
                    heap.poll();
                }
            }
        }
        List<Candidate> sorted = new ArrayList<>(heap);
        sorted.sort(best);
        List<Winner> winners = new ArrayList<>(sorted.size());
        for (Candidate candidate : sorted) {
            winners.add(candidate.winner());
        }
        return winners;
    }
}
