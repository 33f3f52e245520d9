package io.hedgerow.root.merge;

import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges per-partition top hits into the global top k: by score descending, ties by partition
 * ascending, then by document ascending. Each partition's list is already in that order (Lucene
 * breaks score ties by doc id), so this is a k-way merge over a small heap of partitions. Pure.
 */
public final class HitMerger {
    private HitMerger() {
    }

    /**
     * @param byPartition answers indexed by partition; null entries are partitions without one
     * @param k           hits wanted
     */
    public static List<MergedHit> merge(SearchResponse[] byPartition, int k) {
        int[] heap = new int[byPartition.length];
        int[] cursor = new int[byPartition.length];
        int size = 0;
        for (int p = 0; p < byPartition.length; p++) {
            if (byPartition[p] != null && byPartition[p].getHitsCount() > 0) {
                heap[size++] = p;
            }
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(heap, size, i, byPartition, cursor);
        }
        List<MergedHit> merged = new ArrayList<>(Math.min(k, 64));
        while (size > 0 && merged.size() < k) {
            int p = heap[0];
            merged.add(new MergedHit(p, byPartition[p].getHits(cursor[p])));
            cursor[p]++;
            if (cursor[p] == byPartition[p].getHitsCount()) {
                heap[0] = heap[--size];
            }
            siftDown(heap, size, 0, byPartition, cursor);
        }
        return merged;
    }

    /** True when partition a's current hit ranks before partition b's. */
    private static boolean before(int a, int b, SearchResponse[] byPartition, int[] cursor) {
        Hit ha = byPartition[a].getHits(cursor[a]);
        Hit hb = byPartition[b].getHits(cursor[b]);
        int byScore = Float.compare(hb.getScore(), ha.getScore());
        if (byScore != 0) {
            return byScore < 0;
        }
        return a < b; // each partition contributes one current hit, so partitions never tie
    }

    private static void siftDown(int[] heap, int size, int i, SearchResponse[] byPartition, int[] cursor) {
        while (true) {
            int smallest = i;
            int left = 2 * i + 1;
            int right = left + 1;
            if (left < size && before(heap[left], heap[smallest], byPartition, cursor)) {
                smallest = left;
            }
            if (right < size && before(heap[right], heap[smallest], byPartition, cursor)) {
                smallest = right;
            }
            if (smallest == i) {
                return;
            }
            int tmp = heap[i];
            heap[i] = heap[smallest];
            heap[smallest] = tmp;
            i = smallest;
        }
    }

    /** One hit of the merged top k and the partition it came from. */
    public record MergedHit(int partition, Hit hit) {
    }
}
