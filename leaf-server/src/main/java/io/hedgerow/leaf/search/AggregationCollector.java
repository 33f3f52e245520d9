package io.hedgerow.leaf.search;

import static io.hedgerow.leaf.search.AggregationAccumulators.toDouble;

import io.hedgerow.leaf.search.AggregationAccumulators.Accumulator;
import io.hedgerow.leaf.search.AggregationAccumulators.DateHistogram;
import io.hedgerow.leaf.search.AggregationAccumulators.Histogram;
import io.hedgerow.leaf.search.AggregationAccumulators.KeywordTerms;
import io.hedgerow.leaf.search.AggregationAccumulators.NumericTerms;
import io.hedgerow.leaf.search.AggregationAccumulators.Ranges;
import io.hedgerow.leaf.search.AggregationAccumulators.SegmentCounter;
import io.hedgerow.leaf.search.AggregationAccumulators.Stats;

import io.hedgerow.api.Aggregation.CalendarUnit;
import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.AggregationResult;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.FieldValues;
import io.hedgerow.leaf.index.IndexConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.util.BytesRef;

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
                    KeywordTerms terms = new KeywordTerms(agg, shardSize, missing == null ? null : new BytesRef(missing));
                    if (agg.getTerms().getZeroCounts()) {
                        terms.addEveryValue(reader, AggregationAccumulators.MAX_ZERO_COUNT_VALUES, where);
                    }
                    return terms;
                }
                Long missingKey = null;
                if (missing != null) {
                    try {
                        missingKey = FieldValues.toSortableLong(type, agg.getField(), missing);
                    } catch (IllegalArgumentException e) {
                        throw new BadQueryException(where + ": missing: " + e.getMessage(), e);
                    }
                }
                NumericTerms terms = new NumericTerms(agg, shardSize, type == FieldSpec.Type.DOUBLE, missingKey);
                if (agg.getTerms().getZeroCounts()) {
                    terms.addEveryValue(reader, AggregationAccumulators.MAX_ZERO_COUNT_VALUES, where);
                }
                return terms;
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
}
