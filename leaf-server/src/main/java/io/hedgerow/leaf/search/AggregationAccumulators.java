package io.hedgerow.leaf.search;

import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.AggregationBucket;
import io.hedgerow.common.wire.proto.AggregationRange;
import io.hedgerow.common.wire.proto.AggregationResult;
import io.hedgerow.common.wire.proto.AggregationStats;
import io.hedgerow.common.wire.proto.TermsOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * What an {@link AggregationCollector} counts, one kind of aggregation each: an {@link Accumulator}
 * per aggregation over the whole search, and its {@link SegmentCounter} per segment. The collector
 * checks the request and runs them; these only count and answer.
 */
final class AggregationAccumulators {
    /**
     * The most distinct values a field may have in one partition for {@code min_doc_count} 0, which
     * makes a bucket of each: past it the request is refused rather than run (a field of ids would
     * otherwise allocate a bucket per document on every search).
     */
    static final int MAX_ZERO_COUNT_VALUES = 100_000;

    /** Refuses {@code min_doc_count} 0 once the field has shown more than {@code maxValues} values. */
    private static void requireAtMost(long values, int maxValues, String where) throws BadQueryException {
        if (values > maxValues) {
            throw new BadQueryException(where + ": min_doc_count 0 over a field with more than " + maxValues
                    + " distinct values in this partition (expected: at most " + maxValues
                    + "; use min_doc_count 1 or more)", null);
        }
    }

    private AggregationAccumulators() {
    }

    /** One segment's part of an aggregation. */
    interface SegmentCounter {
        void collect(int doc) throws IOException;

        /** The segment is done: fold what it counted into the aggregation's totals. */
        default void finish() throws IOException {
        }
    }

    /** One aggregation over the whole search. */
    abstract static class Accumulator {
        final Aggregation agg;

        Accumulator(Aggregation agg) {
            this.agg = agg;
        }

        abstract SegmentCounter segment(LeafReader reader) throws IOException;

        abstract AggregationResult.Builder result();

        SortedNumericDocValues numbers(LeafReader reader) throws IOException {
            return DocValues.getSortedNumeric(reader, agg.getField());
        }
    }

    /**
     * The first {@code shardSize} of {@code counts} in the asked order (by count, ties by key
     * ascending; or by key), and what the rest counted. Both terms aggregations answer this way;
     * only their keys differ.
     */
    private static <K> AggregationResult.Builder firstInOrder(Map<K, long[]> counts, Comparator<K> keyOrder,
            TermsOrder order, int shardSize, Function<K, AggregationBucket.Builder> bucket) {
        List<Map.Entry<K, long[]>> entries = new ArrayList<>(counts.entrySet());
        Comparator<Map.Entry<K, long[]>> byKey = Map.Entry.comparingByKey(keyOrder);
        entries.sort(switch (order) {
            case COUNT_ASC -> Comparator.<Map.Entry<K, long[]>>comparingLong(e -> e.getValue()[0]).thenComparing(byKey);
            case KEY_ASC -> byKey;
            case KEY_DESC -> byKey.reversed();
            default -> Comparator.<Map.Entry<K, long[]>>comparingLong(e -> -e.getValue()[0]).thenComparing(byKey);
        });
        AggregationResult.Builder result = AggregationResult.newBuilder();
        long other = 0;
        for (int i = 0; i < entries.size(); i++) {
            long count = entries.get(i).getValue()[0];
            if (i < shardSize) {
                result.addBuckets(bucket.apply(entries.get(i).getKey()).setDocCount(count));
            } else {
                other += count;
            }
        }
        return result.setSumOtherDocCount(other).setMoreValues(entries.size() > shardSize);
    }

    /** Keyword terms: per segment, counts by ordinal, folded into counts by term when the segment ends. */
    static final class KeywordTerms extends Accumulator {
        private final int shardSize;
        /** Counted for each document without a value; null for none. */
        private final BytesRef missing;
        private final Map<BytesRef, long[]> counts = new HashMap<>();

        KeywordTerms(Aggregation agg, int shardSize, BytesRef missing) {
            super(agg);
            this.shardSize = shardSize;
            this.missing = missing;
        }

        @Override
        SegmentCounter segment(LeafReader reader) throws IOException {
            SortedSetDocValues values = DocValues.getSortedSet(reader, agg.getField());
            int[] byOrd = new int[(int) Math.min(Integer.MAX_VALUE - 8, values.getValueCount())];
            return new SegmentCounter() {
                @Override
                public void collect(int doc) throws IOException {
                    if (values.advanceExact(doc)) {
                        // A document's ordinals are distinct: each term counts it once.
                        for (int i = values.docValueCount(); i > 0; i--) {
                            byOrd[(int) values.nextOrd()]++;
                        }
                    } else if (missing != null) {
                        counts.computeIfAbsent(missing, m -> new long[1])[0]++;
                    }
                }

                @Override
                public void finish() throws IOException {
                    for (int ord = 0; ord < byOrd.length; ord++) {
                        if (byOrd[ord] > 0) {
                            BytesRef term = values.lookupOrd(ord);
                            long[] count = counts.get(term);
                            if (count == null) {
                                counts.put(BytesRef.deepCopyOf(term), new long[] {byOrd[ord]});
                            } else {
                                count[0] += byOrd[ord];
                            }
                        }
                    }
                }
            };
        }

        /**
         * Every value of the field in {@code reader}'s doc-values dictionaries, counted 0 until a
         * matching document counts it ({@code min_doc_count} 0). A dictionary keeps a deleted
         * document's values until its segment merges, as Elasticsearch's does.
         */
        void addEveryValue(IndexReader reader, int maxValues, String where) throws IOException, BadQueryException {
            for (LeafReaderContext leaf : reader.leaves()) {
                SortedSetDocValues values = DocValues.getSortedSet(leaf.reader(), agg.getField());
                requireAtMost(values.getValueCount(), maxValues, where);
                for (long ord = 0, n = values.getValueCount(); ord < n; ord++) {
                    BytesRef term = values.lookupOrd(ord);
                    if (!counts.containsKey(term)) {
                        counts.put(BytesRef.deepCopyOf(term), new long[1]);
                    }
                }
                requireAtMost(counts.size(), maxValues, where);
            }
        }

        @Override
        AggregationResult.Builder result() {
            return firstInOrder(counts, Comparator.naturalOrder(), agg.getTerms().getOrder(), shardSize,
                    term -> AggregationBucket.newBuilder().setText(term.utf8ToString()));
        }
    }

    /**
     * Counts by a key of each numeric value, a document once per distinct key. The key must not
     * decrease as the value grows: a document's values come sorted, so a repeated key is the one
     * before.
     */
    abstract static class KeyedCounts extends Accumulator {
        final Map<Long, long[]> counts = new HashMap<>();

        KeyedCounts(Aggregation agg) {
            super(agg);
        }

        /** The key of a value as its doc values hold it (a double as its sortable long). */
        abstract long key(long value);

        /** The key counted for a document without a value; null for none. */
        Long missingKey() {
            return null;
        }

        @Override
        final SegmentCounter segment(LeafReader reader) throws IOException {
            SortedNumericDocValues values = numbers(reader);
            Long missing = missingKey();
            return doc -> {
                if (!values.advanceExact(doc)) {
                    if (missing != null) {
                        counts.computeIfAbsent(missing, k -> new long[1])[0]++;
                    }
                } else {
                    long previous = 0;
                    for (int i = 0, n = values.docValueCount(); i < n; i++) {
                        long key = key(values.nextValue());
                        if (i == 0 || key != previous) {
                            counts.computeIfAbsent(key, k -> new long[1])[0]++;
                        }
                        previous = key;
                    }
                }
            };
        }

        /** Buckets by key ascending. */
        AggregationResult.Builder byKey(LongFunction<AggregationBucket.Builder> bucket) {
            AggregationResult.Builder result = AggregationResult.newBuilder();
            counts.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> result.addBuckets(
                    bucket.apply(e.getKey()).setDocCount(e.getValue()[0])));
            return result;
        }
    }

    /** Terms of a long, double or date field, by its sortable long (whose order is the values'). */
    static final class NumericTerms extends KeyedCounts {
        private final int shardSize;
        private final boolean isDouble;
        private final Long missing;

        NumericTerms(Aggregation agg, int shardSize, boolean isDouble, Long missing) {
            super(agg);
            this.shardSize = shardSize;
            this.isDouble = isDouble;
            this.missing = missing;
        }

        @Override
        long key(long value) {
            return value;
        }

        @Override
        Long missingKey() {
            return missing;
        }

        /**
         * Every value of the field among {@code reader}'s live documents, counted 0 until a matching
         * document counts it ({@code min_doc_count} 0): a pass over the field's doc values, as
         * Elasticsearch's numeric terms make.
         */
        void addEveryValue(IndexReader reader, int maxValues, String where) throws IOException, BadQueryException {
            for (LeafReaderContext leaf : reader.leaves()) {
                SortedNumericDocValues values = numbers(leaf.reader());
                Bits live = leaf.reader().getLiveDocs();
                for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                    if (live == null || live.get(doc)) {
                        for (int i = values.docValueCount(); i > 0; i--) {
                            counts.computeIfAbsent(key(values.nextValue()), k -> new long[1]);
                        }
                        requireAtMost(counts.size(), maxValues, where);
                    }
                }
            }
        }

        @Override
        AggregationResult.Builder result() {
            return firstInOrder(counts, Comparator.naturalOrder(), agg.getTerms().getOrder(), shardSize, key -> isDouble
                    ? AggregationBucket.newBuilder().setDoubleKey(NumericUtils.sortableLongToDouble(key))
                    : AggregationBucket.newBuilder().setLongKey(key));
        }
    }

    /** Ranges: a document counts once in each range one of its values falls in. */
    static final class Ranges extends Accumulator {
        private final boolean isDouble;
        private final double[] from;
        private final double[] to;
        private final long[] counts;
        /** The collected document each range counted last, so a multi-valued one counts once. */
        private final long[] lastCounted;
        private long docSeq;

        Ranges(Aggregation agg, boolean isDouble) {
            super(agg);
            this.isDouble = isDouble;
            int n = agg.getRange().getRangesCount();
            from = new double[n];
            to = new double[n];
            counts = new long[n];
            lastCounted = new long[n];
            for (int i = 0; i < n; i++) {
                AggregationRange range = agg.getRange().getRanges(i);
                from[i] = range.hasFrom() ? range.getFrom() : Double.NEGATIVE_INFINITY;
                to[i] = range.hasTo() ? range.getTo() : Double.POSITIVE_INFINITY;
            }
        }

        @Override
        SegmentCounter segment(LeafReader reader) throws IOException {
            SortedNumericDocValues values = numbers(reader);
            return doc -> {
                if (values.advanceExact(doc)) {
                    long seq = ++docSeq;
                    for (int i = values.docValueCount(); i > 0; i--) {
                        double value = toDouble(values.nextValue(), isDouble);
                        for (int r = 0; r < from.length; r++) {
                            if (value >= from[r] && value < to[r] && lastCounted[r] != seq) {
                                lastCounted[r] = seq;
                                counts[r]++;
                            }
                        }
                    }
                }
            };
        }

        @Override
        AggregationResult.Builder result() {
            AggregationResult.Builder result = AggregationResult.newBuilder();
            for (long count : counts) {
                result.addBuckets(AggregationBucket.newBuilder().setDocCount(count));
            }
            return result;
        }
    }

    /**
     * Buckets keyed by floor((value - offset) / interval) * interval + offset, counted by that
     * floor, the bucket's index (so -0.0 and 0.0 share bucket 0, as the root merges them).
     */
    static final class Histogram extends KeyedCounts {
        private final boolean isDouble;
        private final double interval;
        private final double offset;

        Histogram(Aggregation agg, boolean isDouble, double interval, double offset) {
            super(agg);
            this.isDouble = isDouble;
            this.interval = interval;
            this.offset = offset;
        }

        @Override
        long key(long value) {
            // Values are finite (the index refuses others) and the span check bounds the buckets.
            return (long) Math.floor((toDouble(value, isDouble) - offset) / interval);
        }

        @Override
        AggregationResult.Builder result() {
            return byKey(index -> AggregationBucket.newBuilder().setDoubleKey(index * interval + offset));
        }
    }

    /**
     * Date buckets of a fixed width or a calendar unit in a zone's local calendar, shifted by an
     * offset, keyed by their start in epoch millis.
     */
    static final class DateHistogram extends KeyedCounts {
        private final io.hedgerow.api.Aggregation.DateHistogram buckets;
        private final boolean utc;
        /** The last bucket worked out, [start, end): a zone's rounding costs a java.time conversion, and values cluster. */
        private long lastStart = 1;
        private long lastEnd = 0;

        DateHistogram(Aggregation agg, io.hedgerow.api.Aggregation.DateHistogram buckets) {
            super(agg);
            this.buckets = buckets;
            this.utc = buckets.timeZone().equals(java.time.ZoneOffset.UTC) && buckets.offsetMillis() == 0;
        }

        @Override
        long key(long millis) {
            if (utc) {
                return buckets.bucketOf(millis);
            }
            if (millis < lastStart || millis >= lastEnd) {
                lastStart = buckets.bucketOf(millis);
                lastEnd = buckets.nextBucket(lastStart);
            }
            return lastStart;
        }

        @Override
        AggregationResult.Builder result() {
            return byKey(start -> AggregationBucket.newBuilder().setLongKey(start));
        }
    }

    /** Count, min, max and sum over every value. */
    static final class Stats extends Accumulator {
        private final boolean isDouble;
        private long count;
        private double min = Double.POSITIVE_INFINITY;
        private double max = Double.NEGATIVE_INFINITY;
        private double sum;

        Stats(Aggregation agg, boolean isDouble) {
            super(agg);
            this.isDouble = isDouble;
        }

        @Override
        SegmentCounter segment(LeafReader reader) throws IOException {
            SortedNumericDocValues values = numbers(reader);
            boolean hasMissing = agg.getStats().hasMissing();
            double missing = agg.getStats().getMissing();
            return doc -> {
                if (values.advanceExact(doc)) {
                    for (int i = values.docValueCount(); i > 0; i--) {
                        add(toDouble(values.nextValue(), isDouble));
                    }
                } else if (hasMissing) {
                    add(missing);
                }
            };
        }

        private void add(double value) {
            count++;
            min = Math.min(min, value);
            max = Math.max(max, value);
            sum += value;
        }

        @Override
        AggregationResult.Builder result() {
            AggregationStats.Builder stats = AggregationStats.newBuilder().setCount(count);
            if (count > 0) {
                stats.setMin(min).setMax(max).setSum(sum);
            }
            return AggregationResult.newBuilder().setStats(stats);
        }
    }

    /** A point or doc value as a number: a double field stores its values as sortable longs. */
    static double toDouble(long sortable, boolean isDouble) {
        return isDouble ? NumericUtils.sortableLongToDouble(sortable) : sortable;
    }
}
