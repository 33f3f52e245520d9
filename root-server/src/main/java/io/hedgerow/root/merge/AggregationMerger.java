package io.hedgerow.root.merge;

import com.google.protobuf.ByteString;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.AggregationResult.Bucket;
import io.hedgerow.common.wire.proto.AggregationBucket;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Merges the partitions' aggregation answers into one per aggregation, as Elasticsearch reduces
 * its shards' answers. Pure.
 *
 * <ul>
 *   <li><b>terms</b>: counts summed by value, the top {@code size} by count (ties by value:
 *       keywords by their UTF-8 bytes, numbers by value). Each partition sent only its top
 *       {@code shard_size}, so a value may be missing from a partition where it ranked lower: {@code
 *       doc_count_error_upper_bound} is the sum, over partitions that had more values than they
 *       sent, of the lowest count they sent (a missing value counted at most that there), and
 *       {@code sum_other_doc_count} what the partitions counted outside the buckets returned.</li>
 *   <li><b>range</b>: counts summed range by range.</li>
 *   <li><b>histogram</b>, <b>date_histogram</b>: counts summed by key, every bucket from the lowest
 *       to the highest key returned, empty ones between included (Elasticsearch's default
 *       {@code min_doc_count} 0).</li>
 *   <li><b>stats</b>: counts and sums added, the least min and the greatest max.</li>
 * </ul>
 * Partitions without an answer count for nothing: over a tainted result the counts are those of the
 * partitions that answered.
 */
public final class AggregationMerger {
    private static final Comparator<ByteString> BYTES = ByteString.unsignedLexicographicalComparator();
    /** Elasticsearch's key_as_string of a date bucket. */
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private AggregationMerger() {
    }

    /**
     * @param asked       the request's aggregations by name, in order
     * @param byPartition answers indexed by partition; null entries are partitions without one
     * @return the merged answers by name, in the order asked
     * @throws IllegalArgumentException when a partition's answer does not fit the request, or the
     *         merged buckets are more than {@link Aggregation#MAX_BUCKETS}
     */
    public static Map<String, AggregationResult> merge(Map<String, Aggregation> asked, SearchResponse[] byPartition) {
        List<SearchResponse> answers = new ArrayList<>(byPartition.length);
        for (SearchResponse answer : byPartition) {
            if (answer != null) {
                answers.add(answer);
            }
        }
        Map<String, AggregationResult> merged = new LinkedHashMap<>();
        int index = 0;
        long buckets = 0;
        for (Map.Entry<String, Aggregation> agg : asked.entrySet()) {
            List<io.hedgerow.common.wire.proto.AggregationResult> parts = new ArrayList<>(answers.size());
            for (SearchResponse answer : answers) {
                if (answer.getAggsCount() != asked.size() || !answer.getAggs(index).getName().equals(agg.getKey())) {
                    throw new IllegalArgumentException("partition " + answer.getPartition() + " answered "
                            + answer.getAggsCount() + " aggregations (expected: " + asked.size() + ", in the order asked)");
                }
                parts.add(answer.getAggs(index));
            }
            AggregationResult result = merge(agg.getKey(), agg.getValue(), parts);
            buckets += switch (result) {
                case AggregationResult.Terms terms -> terms.buckets().size();
                case AggregationResult.Buckets b -> b.buckets().size();
                case AggregationResult.Stats stats -> 0;
            };
            if (buckets > Aggregation.MAX_BUCKETS) {
                throw new IllegalArgumentException("aggs." + agg.getKey() + ": " + buckets + " buckets over the"
                        + " aggregations so far (expected: <= " + Aggregation.MAX_BUCKETS + "; use a wider interval or"
                        + " a narrower filter)");
            }
            merged.put(agg.getKey(), result);
            index++;
        }
        return merged;
    }

    /** One aggregation over its partitions' parts. */
    public static AggregationResult merge(String name, Aggregation agg,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        return switch (agg) {
            case Aggregation.Terms terms -> terms(terms, parts);
            case Aggregation.Range range -> range(name, range, parts);
            case Aggregation.Histogram histogram -> histogram(name, histogram, parts);
            case Aggregation.DateHistogram dates -> dateHistogram(name, dates, parts);
            case Aggregation.Stats stats -> stats(parts);
        };
    }

    private static AggregationResult.Terms terms(Aggregation.Terms terms,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        Map<Object, long[]> counts = new HashMap<>();
        long errorBound = 0;
        long counted = 0;
        for (var part : parts) {
            for (AggregationBucket bucket : part.getBucketsList()) {
                counts.computeIfAbsent(key(bucket), k -> new long[1])[0] += bucket.getDocCount();
                counted += bucket.getDocCount();
            }
            counted += part.getSumOtherDocCount();
            if (part.getMoreValues() && part.getBucketsCount() > 0) {
                // A value this partition left out had at most the count of the last one it sent.
                errorBound += part.getBuckets(part.getBucketsCount() - 1).getDocCount();
            }
        }
        List<Map.Entry<Object, long[]>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Comparator.<Map.Entry<Object, long[]>>comparingLong(e -> -e.getValue()[0])
                .thenComparing(Map.Entry::getKey, AggregationMerger::compareKeys));
        List<Bucket> top = new ArrayList<>(Math.min(terms.size(), entries.size()));
        long inTop = 0;
        for (int i = 0; i < entries.size() && i < terms.size(); i++) {
            Object key = entries.get(i).getKey();
            top.add(Bucket.of(key instanceof ByteString text ? text.toStringUtf8() : key, entries.get(i).getValue()[0]));
            inTop += entries.get(i).getValue()[0];
        }
        return new AggregationResult.Terms(top, errorBound, counted - inTop);
    }

    private static AggregationResult.Buckets range(String name, Aggregation.Range range,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        long[] counts = new long[range.ranges().size()];
        for (var part : parts) {
            if (part.getBucketsCount() != counts.length) {
                throw new IllegalArgumentException("aggs." + name + ": " + part.getBucketsCount() + " range buckets from a"
                        + " partition (expected: " + counts.length + ")");
            }
            for (int i = 0; i < counts.length; i++) {
                counts[i] += part.getBuckets(i).getDocCount();
            }
        }
        List<Bucket> buckets = new ArrayList<>(counts.length);
        for (int i = 0; i < counts.length; i++) {
            Aggregation.RangeBucket r = range.ranges().get(i);
            buckets.add(new Bucket(r.key(), null, counts[i], r.from(), r.to()));
        }
        return new AggregationResult.Buckets(buckets);
    }

    private static AggregationResult.Buckets histogram(String name, Aggregation.Histogram histogram,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        double interval = histogram.interval();
        // By bucket index: the leaves' key is floor(value / interval) * interval, the index times the interval.
        TreeMap<Long, long[]> counts = countsBy(parts, bucket -> Math.round(bucket.getDoubleKey() / interval));
        List<Bucket> buckets = new ArrayList<>();
        if (!counts.isEmpty()) {
            long first = counts.firstKey();
            long last = counts.lastKey();
            requireBuckets(name, (double) last - first + 1);
            for (long i = first; i <= last; i++) {
                long[] count = counts.get(i);
                buckets.add(Bucket.of((double) i * interval, count == null ? 0 : count[0]));
            }
        }
        return new AggregationResult.Buckets(buckets);
    }

    private static AggregationResult.Buckets dateHistogram(String name, Aggregation.DateHistogram dates,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        TreeMap<Long, long[]> counts = countsBy(parts, AggregationBucket::getLongKey);
        List<Bucket> buckets = new ArrayList<>();
        if (!counts.isEmpty()) {
            long last = counts.lastKey();
            for (long key = counts.firstKey(); key <= last; ) {
                requireBuckets(name, buckets.size() + 1);
                long[] count = counts.get(key);
                buckets.add(new Bucket(key, DATE.format(Instant.ofEpochMilli(key)), count == null ? 0 : count[0], null, null));
                long next = dates.calendarInterval() == null ? key + dates.fixedIntervalMillis()
                        : dates.calendarInterval().next(key);
                if (next <= key) {
                    break; // past the end of time
                }
                key = next;
            }
        }
        return new AggregationResult.Buckets(buckets);
    }

    /** The parts' counts summed by a bucket's key, in key order. */
    private static TreeMap<Long, long[]> countsBy(List<io.hedgerow.common.wire.proto.AggregationResult> parts,
            java.util.function.ToLongFunction<AggregationBucket> key) {
        TreeMap<Long, long[]> counts = new TreeMap<>();
        for (var part : parts) {
            for (AggregationBucket bucket : part.getBucketsList()) {
                counts.computeIfAbsent(key.applyAsLong(bucket), k -> new long[1])[0] += bucket.getDocCount();
            }
        }
        return counts;
    }

    private static AggregationResult.Stats stats(List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        long count = 0;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        for (var part : parts) {
            var stats = part.getStats();
            if (stats.getCount() > 0) {
                count += stats.getCount();
                min = Math.min(min, stats.getMin());
                max = Math.max(max, stats.getMax());
                sum += stats.getSum();
            }
        }
        return count == 0 ? new AggregationResult.Stats(0, Double.NaN, Double.NaN, 0)
                : new AggregationResult.Stats(count, min, max, sum);
    }

    private static void requireBuckets(String name, double buckets) {
        if (buckets > Aggregation.MAX_BUCKETS) {
            throw new IllegalArgumentException("aggs." + name + ": " + (long) buckets + " buckets (expected: <= "
                    + Aggregation.MAX_BUCKETS + "; use a wider interval or a narrower filter)");
        }
    }

    private static Object key(AggregationBucket bucket) {
        return switch (bucket.getKeyCase()) {
            // As bytes: sorting compares UTF-8 bytes, so a String key would be encoded at each comparison.
            case TEXT -> bucket.getTextBytes();
            case LONG_KEY -> bucket.getLongKey();
            case DOUBLE_KEY -> bucket.getDoubleKey();
            case KEY_NOT_SET -> throw new IllegalArgumentException("a terms bucket without a key");
        };
    }

    /** Keywords by their UTF-8 bytes, as the leaves order them; numbers by value. */
    static int compareKeys(Object a, Object b) {
        if (a instanceof ByteString x && b instanceof ByteString y) {
            return BYTES.compare(x, y);
        }
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        if (a instanceof Double x && b instanceof Double y) {
            return Double.compare(x, y);
        }
        throw new IllegalArgumentException("terms keys " + a + " and " + b + " (expected: of one type)");
    }
}
