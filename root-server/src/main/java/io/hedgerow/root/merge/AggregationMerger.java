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
 *   <li><b>terms</b>: counts summed by value, the first {@code size} with at least {@code
 *       min_doc_count} in the asked order (by default by count descending, ties by value: keywords
 *       by their UTF-8 bytes, numbers by value). Each partition sent only its first {@code
 *       shard_size} in that order, so a value may be missing from a partition where it ranked
 *       lower. As Elasticsearch reasons about {@code doc_count_error_upper_bound}: under {@code
 *       _count desc} it is the sum, over partitions that had more values than they sent, of the
 *       lowest count they sent (a missing value counted at most that there); under {@code _count
 *       asc} it is unknown (-1) once a partition had more (a missing value counted at least that);
 *       under a key order it is 0, because the answer stops at the first key past which a
 *       partition sent nothing, and every count before is exact. {@code sum_other_doc_count} is
 *       what the partitions counted outside the buckets returned.</li>
 *   <li><b>range</b>: counts summed range by range.</li>
 *   <li><b>histogram</b>, <b>date_histogram</b>: counts summed by key; under {@code
 *       min_doc_count} 0 (the default) every bucket from the lowest to the highest key returned
 *       (or out to {@code extended_bounds}), empty ones between included; otherwise the buckets
 *       with at least {@code min_doc_count}.</li>
 *   <li><b>stats</b>: counts and sums added, the least min and the greatest max.</li>
 * </ul>
 * Partitions without an answer count for nothing: over a tainted result the counts are those of the
 * partitions that answered.
 */
public final class AggregationMerger {
    private static final Comparator<ByteString> BYTES = ByteString.unsignedLexicographicalComparator();
    /** Elasticsearch's key_as_string of a date bucket, in the histogram's zone ({@code Z} for UTC). */
    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")
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
        Comparator<Object> keyOrder = terms.order() == Aggregation.TermsOrder.KEY_DESC
                ? (a, b) -> compareKeys(b, a) : AggregationMerger::compareKeys;
        // Under a key order: the first key (in that order) past which some partition sent nothing more.
        Object cut = null;
        for (var part : parts) {
            for (AggregationBucket bucket : part.getBucketsList()) {
                counts.computeIfAbsent(key(bucket), k -> new long[1])[0] += bucket.getDocCount();
                counted += bucket.getDocCount();
            }
            counted += part.getSumOtherDocCount();
            if (part.getMoreValues() && part.getBucketsCount() > 0) {
                AggregationBucket last = part.getBuckets(part.getBucketsCount() - 1);
                switch (terms.order()) {
                    // A value this partition left out had at most the count of the last one it sent.
                    case COUNT_DESC -> errorBound += last.getDocCount();
                    // ... at least that count, and at most anything: unknown (Elasticsearch's -1).
                    case COUNT_ASC -> errorBound = -1;
                    case KEY_ASC, KEY_DESC -> {
                        Object key = key(last);
                        if (cut == null || keyOrder.compare(key, cut) < 0) {
                            cut = key;
                        }
                    }
                }
            }
        }
        List<Map.Entry<Object, long[]>> entries = new ArrayList<>(counts.entrySet());
        Comparator<Map.Entry<Object, long[]>> byKey = Map.Entry.comparingByKey(keyOrder);
        entries.sort(switch (terms.order()) {
            case COUNT_DESC -> Comparator.<Map.Entry<Object, long[]>>comparingLong(e -> -e.getValue()[0]).thenComparing(byKey);
            case COUNT_ASC -> Comparator.<Map.Entry<Object, long[]>>comparingLong(e -> e.getValue()[0])
                    .thenComparing(Map.Entry.comparingByKey(AggregationMerger::compareKeys));
            case KEY_ASC, KEY_DESC -> byKey;
        });
        List<Bucket> top = new ArrayList<>(Math.min(terms.size(), entries.size()));
        long inTop = 0;
        for (int i = 0; i < entries.size() && top.size() < terms.size(); i++) {
            Object key = entries.get(i).getKey();
            long count = entries.get(i).getValue()[0];
            if (cut != null && keyOrder.compare(key, cut) > 0) {
                // Past the cut a partition may hold the key uncounted: every count up to the cut is
                // exact (a partition that sent its first shard_size keys sent every key before its
                // last), none after it is, so the answer stops there (Elasticsearch's error bound 0
                // under a key order holds only so).
                break;
            }
            if (count >= terms.minDocCount()) {
                top.add(Bucket.of(key instanceof ByteString text ? text.toStringUtf8() : key, count));
                inTop += count;
            }
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
        return new AggregationResult.Buckets(buckets, range.keyed());
    }

    private static AggregationResult.Buckets histogram(String name, Aggregation.Histogram histogram,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        double interval = histogram.interval();
        double offset = histogram.offset();
        // By bucket index: the leaves' key is floor((value - offset) / interval) * interval + offset.
        TreeMap<Long, long[]> counts = countsBy(parts, bucket -> Math.round((bucket.getDoubleKey() - offset) / interval));
        List<Bucket> buckets = new ArrayList<>();
        if (histogram.minDocCount() > 0) {
            for (Map.Entry<Long, long[]> count : counts.entrySet()) {
                if (count.getValue()[0] >= histogram.minDocCount()) {
                    buckets.add(Bucket.of((double) count.getKey() * interval + offset, count.getValue()[0]));
                }
            }
            return new AggregationResult.Buckets(buckets);
        }
        Long first = counts.isEmpty() ? null : counts.firstKey();
        Long last = counts.isEmpty() ? null : counts.lastKey();
        if (histogram.extendedBounds() != null) {
            long low = (long) Math.floor((histogram.extendedBounds().min() - offset) / interval);
            long high = (long) Math.floor((histogram.extendedBounds().max() - offset) / interval);
            first = first == null ? low : Math.min(first, low);
            last = last == null ? high : Math.max(last, high);
        }
        if (first != null) {
            requireBuckets(name, (double) last - first + 1);
            for (long i = first; i <= last; i++) {
                long[] count = counts.get(i);
                buckets.add(Bucket.of((double) i * interval + offset, count == null ? 0 : count[0]));
            }
        }
        return new AggregationResult.Buckets(buckets);
    }

    private static AggregationResult.Buckets dateHistogram(String name, Aggregation.DateHistogram dates,
            List<io.hedgerow.common.wire.proto.AggregationResult> parts) {
        TreeMap<Long, long[]> counts = countsBy(parts, AggregationBucket::getLongKey);
        DateTimeFormatter format = DATE.withZone(dates.timeZone());
        List<Bucket> buckets = new ArrayList<>();
        if (dates.minDocCount() > 0) {
            for (Map.Entry<Long, long[]> count : counts.entrySet()) {
                if (count.getValue()[0] >= dates.minDocCount()) {
                    buckets.add(new Bucket(count.getKey(), format.format(Instant.ofEpochMilli(count.getKey())),
                            count.getValue()[0], null, null));
                }
            }
            return new AggregationResult.Buckets(buckets);
        }
        Long first = counts.isEmpty() ? null : counts.firstKey();
        Long last = counts.isEmpty() ? null : counts.lastKey();
        if (dates.extendedBounds() != null) {
            long low = dates.bucketOf((long) dates.extendedBounds().min());
            long high = dates.bucketOf((long) dates.extendedBounds().max());
            first = first == null ? low : Math.min(first, low);
            last = last == null ? high : Math.max(last, high);
        }
        if (first != null) {
            for (long key = first; key <= last; ) {
                requireBuckets(name, buckets.size() + 1);
                long[] count = counts.get(key);
                buckets.add(new Bucket(key, format.format(Instant.ofEpochMilli(key)), count == null ? 0 : count[0], null, null));
                long next = dates.nextBucket(key);
                // Never past a key a leaf answered (a zone's odd offset change could make a step skip one).
                Long answered = counts.higherKey(key);
                if (answered != null && answered < next) {
                    next = answered;
                }
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
