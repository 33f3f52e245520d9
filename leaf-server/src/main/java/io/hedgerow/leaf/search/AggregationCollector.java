package io.hedgerow.leaf.search;

import io.hedgerow.api.Aggregation.CalendarUnit;
import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.AggregationBucket;
import io.hedgerow.common.wire.proto.AggregationRange;
import io.hedgerow.common.wire.proto.AggregationResult;
import io.hedgerow.common.wire.proto.AggregationStats;
import io.hedgerow.common.wire.proto.TermsOrder;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.FieldValues;
import io.hedgerow.leaf.index.IndexConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.NumericUtils;

/**
 * Computes a search's aggregations over the documents it collects, reading each field's doc values
 * in the same pass as the hits (beside the top-hits collector, in a {@link
 * org.apache.lucene.search.MultiCollector}). Lucene's facet module would collect the matching doc
 * ids of every segment first and count them in a second pass; this counts as it goes, so a search
 * sliced over several workers ({@link SlicedSearch}) carries only counts from slice to slice.
 *
 * <p>Multi-valued fields count as Elasticsearch counts them: a document once per distinct term,
 * histogram bucket or range it has a value in; stats over every value.
 *
 * <p><b>Assumptions and guarantees.</b> One collector per search, used by one thread at a time
 * (a sliced search hands it over with a happens-before edge); segments in any order.
 */
final class AggregationCollector implements Collector {
    private static final int MAX_BUCKETS = io.hedgerow.api.Aggregation.MAX_BUCKETS;

    private final List<Accumulator> accumulators;

    private AggregationCollector(List<Accumulator> accumulators) {
        this.accumulators = accumulators;
    }

    /**
     * The collector for {@code aggs} over {@code reader}: fields and types checked against the index,
     * histogram buckets bounded over this partition's values, all before anything is collected.
     *
     * @throws BadQueryException naming the aggregation and what is wrong with it
     */
    static AggregationCollector of(List<Aggregation> aggs, IndexConfig config, IndexReader reader)
            throws BadQueryException, IOException {
        List<Accumulator> accumulators = new ArrayList<>(aggs.size());
        for (Aggregation agg : aggs) {
            accumulators.add(accumulator(agg, config, reader));
        }
        return new AggregationCollector(accumulators);
    }

    private static Accumulator accumulator(Aggregation agg, IndexConfig config, IndexReader reader)
            throws BadQueryException, IOException {
        String where = "aggs." + agg.getName() + " (" + kindName(agg) + " on '" + agg.getField() + "')";
        FieldSpec.Type type = config.typeOf(agg.getField());
        if (type == null) {
            throw new BadQueryException(where + ": field '" + agg.getField() + "' is not in the index (expected one of "
                    + config.fields().keySet() + ")", null);
        }
        boolean number = type == FieldSpec.Type.LONG || type == FieldSpec.Type.DOUBLE || type == FieldSpec.Type.DATE;
        switch (agg.getKindCase()) {
            case TERMS -> {
                if (type != FieldSpec.Type.KEYWORD && !number) {
                    throw wrongType(where, type, "a keyword, long, double or date field");
                }
                int shardSize = agg.getTerms().getShardSize();
                if (shardSize < 1 || shardSize > MAX_BUCKETS) {
                    throw new BadQueryException(where + ": shard_size " + shardSize + " (expected: 1.."
                            + MAX_BUCKETS + ")", null);
                }
                String missing = switch (agg.getTerms().getMissingCase()) {
                    case MISSING_TEXT -> agg.getTerms().getMissingText();
                    case MISSING_LONG -> Long.toString(agg.getTerms().getMissingLong());
                    case MISSING_DOUBLE -> Double.toString(agg.getTerms().getMissingDouble());
                    case MISSING_NOT_SET -> null;
                };
                if (type == FieldSpec.Type.KEYWORD) {
                    return new KeywordTerms(agg, shardSize, missing == null ? null : new BytesRef(missing));
                }
                Long missingKey = null;
                if (missing != null) {
                    try {
                        missingKey = FieldValues.toSortableLong(type, agg.getField(), missing);
                    } catch (IllegalArgumentException e) {
                        throw new BadQueryException(where + ": missing: " + e.getMessage(), e);
                    }
                }
                return new NumericTerms(agg, shardSize, type == FieldSpec.Type.DOUBLE, missingKey);
            }
            case RANGE -> {
                requireNumber(where, type, number);
                if (agg.getRange().getRangesCount() == 0 || agg.getRange().getRangesCount() > MAX_BUCKETS) {
                    throw new BadQueryException(where + ": " + agg.getRange().getRangesCount() + " ranges (expected: 1.."
                            + MAX_BUCKETS + ")", null);
                }
                return new Ranges(agg, type == FieldSpec.Type.DOUBLE);
            }
            case HISTOGRAM -> {
                requireNumber(where, type, number);
                double interval = agg.getHistogram().getInterval();
                if (!(interval > 0) || !Double.isFinite(interval)) {
                    throw new BadQueryException(where + ": interval " + interval + " (expected: > 0)", null);
                }
                double offset = agg.getHistogram().getOffset();
                if (!(offset >= 0 && offset < interval)) {
                    throw new BadQueryException(where + ": offset " + offset + " (expected: >= 0 and < interval "
                            + interval + ")", null);
                }
                double[] span = span(reader, agg.getField(), type == FieldSpec.Type.DOUBLE);
                if (span != null) {
                    requireBuckets(where, Math.floor((span[1] - offset) / interval) - Math.floor((span[0] - offset) / interval) + 1);
                }
                return new Histogram(agg, type == FieldSpec.Type.DOUBLE, interval, offset);
            }
            case DATE_HISTOGRAM -> {
                if (type != FieldSpec.Type.DATE && type != FieldSpec.Type.LONG) {
                    throw wrongType(where, type, "a date field (or a long of epoch milliseconds)");
                }
                var spec = agg.getDateHistogram();
                CalendarUnit unit = null;
                long fixed = spec.getFixedIntervalMillis();
                if (!spec.getCalendarInterval().isEmpty()) {
                    try {
                        unit = CalendarUnit.parse(spec.getCalendarInterval());
                    } catch (IllegalArgumentException e) {
                        throw new BadQueryException(where + ": " + e.getMessage(), e);
                    }
                }
                if ((fixed > 0) == (unit != null)) {
                    throw new BadQueryException(where + ": expected exactly one of fixed_interval and calendar_interval", null);
                }
                java.time.ZoneId zone = java.time.ZoneOffset.UTC;
                if (!spec.getTimeZone().isEmpty()) {
                    try {
                        zone = java.time.ZoneId.of(spec.getTimeZone());
                    } catch (java.time.DateTimeException e) {
                        throw new BadQueryException(where + ": time_zone '" + spec.getTimeZone() + "' (expected: an IANA"
                                + " zone such as Europe/Paris or an offset such as +01:00)", e);
                    }
                }
                io.hedgerow.api.Aggregation.DateHistogram buckets;
                try {
                    buckets = new io.hedgerow.api.Aggregation.DateHistogram(agg.getField(), unit == null ? fixed : 0, unit,
                            zone, spec.getOffsetMillis(), 0, null);
                } catch (IllegalArgumentException e) {
                    throw new BadQueryException(where + ": " + e.getMessage(), e);
                }
                double[] span = span(reader, agg.getField(), false);
                if (span != null) {
                    long width = unit == null ? fixed : unit.shortestMillis();
                    // A zone's offset changes lengthen a span of local time by a day at most.
                    requireBuckets(where, (span[1] - span[0]) / width + 3);
                }
                return new DateHistogram(agg, buckets);
            }
            case STATS -> {
                requireNumber(where, type, number);
                return new Stats(agg, type == FieldSpec.Type.DOUBLE);
            }
            default -> throw new BadQueryException(where + ": no kind (expected: terms, range, histogram, date_histogram"
                    + " or stats)", null);
        }
    }

    static String kindName(Aggregation agg) {
        return agg.getKindCase() == Aggregation.KindCase.KIND_NOT_SET ? "nothing" : agg.getKindCase().name().toLowerCase();
    }

    private static BadQueryException wrongType(String where, FieldSpec.Type type, String expected) {
        return new BadQueryException(where + ": field is " + type.name().toLowerCase() + " (expected: " + expected + ")", null);
    }

    private static void requireNumber(String where, FieldSpec.Type type, boolean number) throws BadQueryException {
        if (!number) {
            throw wrongType(where, type, "a long, double or date field");
        }
    }

    private static void requireBuckets(String where, double buckets) throws BadQueryException {
        if (buckets > MAX_BUCKETS) {
            throw new BadQueryException(where + ": about " + (long) buckets + " buckets over this partition's values"
                    + " (expected: <= " + MAX_BUCKETS + "; use a wider interval)", null);
        }
    }

    /** The least and greatest value of the field in the partition (from its points), or null when none has one. */
    private static double[] span(IndexReader reader, String field, boolean isDouble) throws IOException {
        byte[] min = PointValues.getMinPackedValue(reader, field);
        byte[] max = PointValues.getMaxPackedValue(reader, field);
        if (min == null || max == null) {
            return null;
        }
        return new double[] {toDouble(LongPoint.decodeDimension(min, 0), isDouble),
                toDouble(LongPoint.decodeDimension(max, 0), isDouble)};
    }

    private static double toDouble(long sortable, boolean isDouble) {
        return isDouble ? NumericUtils.sortableLongToDouble(sortable) : sortable;
    }

    @Override
    public ScoreMode scoreMode() {
        return ScoreMode.COMPLETE_NO_SCORES;
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
        SegmentCounter[] counters = new SegmentCounter[accumulators.size()];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = accumulators.get(i).segment(context.reader());
        }
        return new LeafCollector() {
            @Override
            public void setScorer(Scorable scorer) {
            }

            @Override
            public void collect(int doc) throws IOException {
                for (SegmentCounter counter : counters) {
                    counter.collect(doc);
                }
            }

            @Override
            public void finish() throws IOException {
                for (SegmentCounter counter : counters) {
                    counter.finish();
                }
            }
        };
    }

    /** Every aggregation's answer over what was collected, in the request's order. */
    List<AggregationResult> results() {
        List<AggregationResult> results = new ArrayList<>(accumulators.size());
        for (Accumulator accumulator : accumulators) {
            results.add(accumulator.result().setName(accumulator.agg.getName()).build());
        }
        return results;
    }

    /** One segment's part of an aggregation. */
    private interface SegmentCounter {
        void collect(int doc) throws IOException;

        /** The segment is done: fold what it counted into the aggregation's totals. */
        default void finish() throws IOException {
        }
    }

    /** One aggregation over the whole search. */
    private abstract static class Accumulator {
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
    private static final class KeywordTerms extends Accumulator {
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
    private abstract static class KeyedCounts extends Accumulator {
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
    private static final class NumericTerms extends KeyedCounts {
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

        @Override
        AggregationResult.Builder result() {
            return firstInOrder(counts, Comparator.naturalOrder(), agg.getTerms().getOrder(), shardSize, key -> isDouble
                    ? AggregationBucket.newBuilder().setDoubleKey(NumericUtils.sortableLongToDouble(key))
                    : AggregationBucket.newBuilder().setLongKey(key));
        }
    }

    /** Ranges: a document counts once in each range one of its values falls in. */
    private static final class Ranges extends Accumulator {
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
    private static final class Histogram extends KeyedCounts {
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
    private static final class DateHistogram extends KeyedCounts {
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
    private static final class Stats extends Accumulator {
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
}
