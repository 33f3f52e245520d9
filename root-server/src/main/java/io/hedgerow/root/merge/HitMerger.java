package io.hedgerow.root.merge;

import com.google.protobuf.ByteString;
import io.hedgerow.api.SortField;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.SortValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.util.NumericUtils;

/**
 * Merges per-partition top hits into one page. In the classic order: by score descending, ties by
 * partition ascending, then by document ascending. With a sort: by the hits' sort values, key by key
 * in each key's direction, then by id ascending (the leaves' last sort value), so ties break the
 * same way on every replica and at every root, whatever the partition or doc id. Each partition's
 * list is already in that order (the leaf sorted it so), so this is a k-way merge over a small heap
 * of partitions, which skips the first {@code from} hits of the merged order. Pure.
 */
public final class HitMerger {
    private static final Comparator<ByteString> BYTES = ByteString.unsignedLexicographicalComparator();
    /** The classic order: by score, highest first (ties: see {@link #before}). */
    private static final Comparator<Hit> BY_SCORE = (a, b) -> Float.compare(b.getScore(), a.getScore());

    private HitMerger() {
    }

    /**
     * The classic top k by score.
     *
     * @param byPartition answers indexed by partition; null entries are partitions without one
     * @param k           hits wanted
     */
    public static List<MergedHit> merge(SearchResponse[] byPartition, int k) {
        return merge(byPartition, 0, k, List.of());
    }

    /**
     * Hits {@code from} to {@code from + k} of the merged order.
     *
     * @param byPartition answers indexed by partition (each holding at least its top {@code from + k});
     *                    null entries are partitions without one
     * @param sort        the request's sort keys; empty for the classic score order
     */
    public static List<MergedHit> merge(SearchResponse[] byPartition, int from, int k, List<SortField> sort) {
        Comparator<Hit> order = sort.isEmpty() ? BY_SCORE : Order.of(sort);
        int[] heap = new int[byPartition.length];
        int[] cursor = new int[byPartition.length];
        int size = 0;
        for (int p = 0; p < byPartition.length; p++) {
            if (byPartition[p] != null && byPartition[p].getHitsCount() > 0) {
                heap[size++] = p;
            }
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(heap, size, i, byPartition, cursor, order);
        }
        List<MergedHit> merged = new ArrayList<>(Math.min(k, 64));
        int skipped = 0;
        while (size > 0 && merged.size() < k) {
            int p = heap[0];
            if (skipped < from) {
                skipped++;
            } else {
                merged.add(new MergedHit(p, byPartition[p].getHits(cursor[p])));
            }
            cursor[p]++;
            if (cursor[p] == byPartition[p].getHitsCount()) {
                heap[0] = heap[--size];
            }
            siftDown(heap, size, 0, byPartition, cursor, order);
        }
        return merged;
    }

    /**
     * True when partition a's current hit ranks before partition b's: by {@code order}, then by
     * partition. Each partition contributes one current hit, so partitions never tie; sorted hits
     * tie on their values only for one document in two partitions (the id is the last key).
     */
    private static boolean before(int a, int b, SearchResponse[] byPartition, int[] cursor, Comparator<Hit> order) {
        int cmp = order.compare(byPartition[a].getHits(cursor[a]), byPartition[b].getHits(cursor[b]));
        return cmp != 0 ? cmp < 0 : a < b;
    }

    private static void siftDown(int[] heap, int size, int i, SearchResponse[] byPartition, int[] cursor,
            Comparator<Hit> order) {
        while (true) {
            int smallest = i;
            int left = 2 * i + 1;
            int right = left + 1;
            if (left < size && before(heap[left], heap[smallest], byPartition, cursor, order)) {
                smallest = left;
            }
            if (right < size && before(heap[right], heap[smallest], byPartition, cursor, order)) {
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

    /**
     * The order of sorted hits, as the leaves sorted them: each key's value (a number, a score, or
     * keyword bytes compared unsigned; a keyword without a value last either way; a number without one
     * carries the sentinel that sorts it last) in its direction, then the id ascending.
     */
    public record Order(boolean[] descending) implements Comparator<Hit> {
        /** The order of {@code sort}'s keys, each in its direction. */
        public static Order of(List<SortField> sort) {
            boolean[] descending = new boolean[sort.size()];
            for (int i = 0; i < descending.length; i++) {
                descending[i] = sort.get(i).descending();
            }
            return new Order(descending);
        }

        @Override
        public int compare(Hit a, Hit b) {
            int keys = Math.min(a.getSortValuesCount(), b.getSortValuesCount());
            for (int i = 0; i < keys; i++) {
                SortValue x = a.getSortValues(i);
                SortValue y = b.getSortValues(i);
                boolean desc = i < descending.length && descending[i];
                int cmp;
                if (x.getKindCase() == SortValue.KindCase.KEYWORD && (x.getMissing() || y.getMissing())) {
                    cmp = Boolean.compare(x.getMissing(), y.getMissing()); // missing last, in both directions
                } else {
                    cmp = switch (x.getKindCase()) {
                        case SORTABLE -> Long.compare(x.getSortable(), y.getSortable());
                        case SCORE -> Float.compare(x.getScore(), y.getScore());
                        case KEYWORD -> BYTES.compare(x.getKeyword(), y.getKeyword());
                        case KIND_NOT_SET -> 0;
                    };
                    cmp = desc ? -cmp : cmp;
                }
                if (cmp != 0) {
                    return cmp;
                }
            }
            return 0;
        }
    }

    /**
     * A hit's sort values as the API gives them: Long (long, date, boolean), Double, String
     * (keywords and the id), Float (score), null for a missing value; null without a sort. A double
     * comes as the leaves index it ({@link NumericUtils#doubleToSortableLong}) and is decoded here.
     */
    public static List<Object> sortValues(Hit hit) {
        if (hit.getSortValuesCount() == 0) {
            return null;
        }
        List<Object> values = new ArrayList<>(hit.getSortValuesCount());
        for (SortValue value : hit.getSortValuesList()) {
            if (value.getMissing()) {
                values.add(null);
                continue;
            }
            values.add(switch (value.getKindCase()) {
                case SORTABLE -> value.getIsDouble() ? NumericUtils.sortableLongToDouble(value.getSortable()) : (Object) value.getSortable();
                case SCORE -> value.getScore();
                case KEYWORD -> value.getKeyword().toStringUtf8();
                case KIND_NOT_SET -> null;
            });
        }
        return values;
    }

    /** One hit of the merged top k and the partition it came from. */
    public record MergedHit(int partition, Hit hit) {
    }
}
