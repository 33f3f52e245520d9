package io.hedgerow.api;

import java.util.List;

/**
 * One aggregation's merged answer. Over a tainted result (some partition missing) the counts cover
 * only the partitions that answered, as the hits and the total do.
 */
public sealed interface AggregationResult permits AggregationResult.Terms, AggregationResult.Buckets,
        AggregationResult.Stats {

    /**
     * @param buckets                 the top values, by document count (ties by value)
     * @param docCountErrorUpperBound how many documents a value's count may miss at most: the sum,
     *                                over partitions that had more values than they returned, of the
     *                                lowest count they returned (Elasticsearch's meaning); 0 when every
     *                                partition returned all its values, and the counts are exact;
     *                                0 under a key order (the root keeps only values every
     *                                partition returned up to); -1, unknown, under {@code _count
     *                                asc} when a partition had more values than it returned
     * @param sumOtherDocCount        documents (document-value pairs for a multi-valued field) counted
     *                                by the partitions but in no returned bucket
     */
    record Terms(List<Bucket> buckets, long docCountErrorUpperBound, long sumOtherDocCount) implements AggregationResult {
        public Terms {
            buckets = List.copyOf(buckets);
        }
    }

    /**
     * A range, histogram or date_histogram's buckets: ranges in the order asked, histograms by key.
     *
     * @param keyed answered as an object by key rather than an array (a range's {@code keyed})
     */
    record Buckets(List<Bucket> buckets, boolean keyed) implements AggregationResult {
        public Buckets {
            buckets = List.copyOf(buckets);
        }

        public Buckets(List<Bucket> buckets) {
            this(buckets, false);
        }
    }

    /** Over every value of the field in the matching documents; min, max and avg are NaN when count is 0. */
    record Stats(long count, double min, double max, double sum) implements AggregationResult {
        public double avg() {
            return count == 0 ? Double.NaN : sum / count;
        }
    }

    /**
     * @param key         a String (keyword value, range key), Long (long value, date bucket in epoch
     *                    millis) or Double (double value, histogram bucket)
     * @param keyAsString a date bucket's key in ISO 8601; null otherwise
     * @param docCount    matching documents in the bucket
     * @param from        a range bucket's lower end (null: open, or not a range)
     * @param to          a range bucket's upper end (null: open, or not a range)
     */
    record Bucket(Object key, String keyAsString, long docCount, Double from, Double to) {
        public Bucket {
            java.util.Objects.requireNonNull(key, "key");
            if (!(key instanceof String || key instanceof Long || key instanceof Double)) {
                throw new IllegalArgumentException("key: " + key.getClass().getSimpleName() + " (expected: String, Long or Double)");
            }
        }

        public static Bucket of(Object key, long docCount) {
            return new Bucket(key, null, docCount, null, null);
        }
    }
}
