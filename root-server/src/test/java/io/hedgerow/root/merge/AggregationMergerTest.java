package io.hedgerow.root.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.AggregationResult.Bucket;
import io.hedgerow.common.wire.proto.AggregationBucket;
import io.hedgerow.common.wire.proto.AggregationStats;
import io.hedgerow.common.wire.proto.SearchResponse;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AggregationMergerTest {

    private static io.hedgerow.common.wire.proto.AggregationResult terms(String name, long other, boolean more,
            Object... keysAndCounts) {
        var result = io.hedgerow.common.wire.proto.AggregationResult.newBuilder().setName(name)
                .setSumOtherDocCount(other).setMoreValues(more);
        for (int i = 0; i < keysAndCounts.length; i += 2) {
            result.addBuckets(bucket(keysAndCounts[i], (Integer) keysAndCounts[i + 1]));
        }
        return result.build();
    }

    private static AggregationBucket bucket(Object key, long count) {
        AggregationBucket.Builder bucket = AggregationBucket.newBuilder().setDocCount(count);
        switch (key) {
            case String s -> bucket.setText(s);
            case Long l -> bucket.setLongKey(l);
            case Double d -> bucket.setDoubleKey(d);
            case null -> { }
            default -> throw new IllegalArgumentException(key.toString());
        }
        return bucket.build();
    }

    private static io.hedgerow.common.wire.proto.AggregationResult buckets(String name, Object... keysAndCounts) {
        return terms(name, 0, false, keysAndCounts);
    }

    private static SearchResponse answer(int partition, io.hedgerow.common.wire.proto.AggregationResult... aggs) {
        return SearchResponse.newBuilder().setPartition(partition).addAllAggs(List.of(aggs)).build();
    }

    private static List<String> described(List<Bucket> buckets) {
        return buckets.stream().map(b -> b.key() + "=" + b.docCount()).toList();
    }

    @Test
    void termsSumCountsAndBoundTheErrorByTheLastCountOfEachPartitionThatLeftValuesOut() {
        // Elasticsearch's worked example, in small: shard_size 3, size 2.
        Aggregation.Terms asked = new Aggregation.Terms("tag", 2, 3);
        AggregationResult.Terms merged = (AggregationResult.Terms) AggregationMerger.merge("t", asked, List.of(
                terms("t", 10, true, "a", 25, "b", 18, "c", 6),   // more values: a missing one had <= 6
                terms("t", 0, false, "a", 30, "c", 23, "b", 1),   // all its values: exact
                terms("t", 4, true, "c", 20, "a", 17, "d", 5)));  // more values: <= 5

        assertThat(described(merged.buckets())).containsExactly("a=72", "c=49");
        assertThat(merged.docCountErrorUpperBound()).isEqualTo(6 + 5);
        // Everything counted (49 + 10 + 54 + 42 + 4 = 159) less what the buckets hold.
        assertThat(merged.sumOtherDocCount()).isEqualTo(159 - 72 - 49);
    }

    @Test
    void termsAreExactWhenNoPartitionLeftAValueOutAndTiesGoByKey() {
        Aggregation.Terms asked = new Aggregation.Terms("tag", 3, 10);
        AggregationResult.Terms merged = (AggregationResult.Terms) AggregationMerger.merge("t", asked, List.of(
                terms("t", 0, false, "zeta", 2, "Zeta", 2),
                terms("t", 0, false, "éta", 2, "alpha", 1)));

        assertThat(merged.docCountErrorUpperBound()).isZero();
        // Ties by UTF-8 bytes, as the leaves order them: "Zeta" < "zeta" < "éta".
        assertThat(described(merged.buckets())).containsExactly("Zeta=2", "zeta=2", "éta=2");
        assertThat(merged.sumOtherDocCount()).isEqualTo(1);
    }

    @Test
    void numericTermsKeepTheirKeysTypesAndOrderByValue() {
        AggregationResult.Terms merged = (AggregationResult.Terms) AggregationMerger.merge("n",
                Aggregation.Terms.of("n", 3), List.of(terms("n", 0, false, 10L, 1, -2L, 1), terms("n", 0, false, 3L, 1)));

        assertThat(merged.buckets()).extracting(Bucket::key).containsExactly(-2L, 3L, 10L);
    }

    @Test
    void rangesSumRangeByRangeWithTheirKeysAndEnds() {
        Aggregation.Range asked = new Aggregation.Range("n", List.of(new Aggregation.RangeBucket(null, null, 10.0),
                new Aggregation.RangeBucket("mid", 10.0, 20.0), new Aggregation.RangeBucket(null, 20.0, null)));
        AggregationResult.Buckets merged = (AggregationResult.Buckets) AggregationMerger.merge("r", asked, List.of(
                buckets("r", null, 1, null, 2, null, 3), buckets("r", null, 10, null, 0, null, 5)));

        assertThat(merged.buckets()).containsExactly(new Bucket("*-10.0", null, 11, null, 10.0),
                new Bucket("mid", null, 2, 10.0, 20.0), new Bucket("20.0-*", null, 8, 20.0, null));
    }

    @Test
    void histogramsSumByKeyAndFillTheEmptyBucketsBetween() {
        AggregationResult.Buckets merged = (AggregationResult.Buckets) AggregationMerger.merge("h",
                new Aggregation.Histogram("price", 2.5), List.of(
                        buckets("h", -2.5, 1, 5.0, 2), buckets("h", 5.0, 3, 12.5, 1)));

        assertThat(described(merged.buckets())).containsExactly("-2.5=1", "0.0=0", "2.5=0", "5.0=5", "7.5=0", "10.0=0",
                "12.5=1");
    }

    @Test
    void dateHistogramsFillCalendarMonthsOfTheirOwnLengths() {
        long jan = day("2024-01-01");
        long apr = day("2024-04-01");
        AggregationResult.Buckets merged = (AggregationResult.Buckets) AggregationMerger.merge("d",
                Aggregation.DateHistogram.calendar("day", Aggregation.CalendarUnit.MONTH), List.of(
                        buckets("d", jan, 2), buckets("d", apr, 1, jan, 1)));

        assertThat(merged.buckets()).extracting(Bucket::key).containsExactly(jan, day("2024-02-01"), day("2024-03-01"), apr);
        assertThat(merged.buckets()).extracting(Bucket::docCount).containsExactly(3L, 0L, 0L, 1L);
        assertThat(merged.buckets().get(1).keyAsString()).isEqualTo("2024-02-01T00:00:00.000Z");
    }

    @Test
    void statsAddCountsAndSumsAndKeepTheExtremesIgnoringEmptyPartitions() {
        var empty = io.hedgerow.common.wire.proto.AggregationResult.newBuilder().setName("s")
                .setStats(AggregationStats.newBuilder()).build();
        var one = io.hedgerow.common.wire.proto.AggregationResult.newBuilder().setName("s")
                .setStats(AggregationStats.newBuilder().setCount(2).setMin(-1).setMax(4).setSum(3)).build();
        var two = io.hedgerow.common.wire.proto.AggregationResult.newBuilder().setName("s")
                .setStats(AggregationStats.newBuilder().setCount(3).setMin(2).setMax(9).setSum(15)).build();

        AggregationResult.Stats merged = (AggregationResult.Stats) AggregationMerger.merge("s",
                new Aggregation.Stats("n"), List.of(empty, one, two));
        AggregationResult.Stats none = (AggregationResult.Stats) AggregationMerger.merge("s",
                new Aggregation.Stats("n"), List.of(empty));

        assertThat(merged).isEqualTo(new AggregationResult.Stats(5, -1, 9, 18));
        assertThat(merged.avg()).isEqualTo(3.6);
        assertThat(none.count()).isZero();
        assertThat(none.min()).isNaN();
        assertThat(none.avg()).isNaN();
    }

    @Test
    void mergesByNameOverTheAnsweredPartitionsOnly() {
        Map<String, Aggregation> asked = new LinkedHashMap<>();
        asked.put("tags", Aggregation.Terms.of("tag", 5));
        asked.put("stats", new Aggregation.Stats("n"));
        var stats = io.hedgerow.common.wire.proto.AggregationResult.newBuilder().setName("stats")
                .setStats(AggregationStats.newBuilder().setCount(1).setMin(1).setMax(1).setSum(1)).build();

        Map<String, AggregationResult> merged = AggregationMerger.merge(asked, new SearchResponse[] {
                answer(0, terms("tags", 0, false, "a", 1), stats), null, answer(2, terms("tags", 0, false, "a", 2), stats)});

        assertThat(merged.keySet()).containsExactly("tags", "stats");
        assertThat(described(((AggregationResult.Terms) merged.get("tags")).buckets())).containsExactly("a=3");
        assertThat(((AggregationResult.Stats) merged.get("stats")).count()).isEqualTo(2);
    }

    @Test
    void refusesMoreBucketsThanTheCapAndAnswersThatDoNotFitTheRequest() {
        Map<String, Aggregation> asked = Map.of("h", new Aggregation.Histogram("n", 1));
        SearchResponse wide = answer(0, buckets("h", 0.0, 1, 20_000.0, 1));
        assertThatThrownBy(() -> AggregationMerger.merge(asked, new SearchResponse[] {wide}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aggs.h: 20001 buckets");

        SearchResponse without = SearchResponse.newBuilder().setPartition(3).build();
        assertThatThrownBy(() -> AggregationMerger.merge(asked, new SearchResponse[] {without}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition 3 answered 0 aggregations");
    }

    private static long day(String date) {
        return LocalDate.parse(date).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    }

    @Test
    void termsByKeyStopAtTheFirstCutSoEveryCountIsExactAndTheBoundIsZero() {
        // size 3, shard_size 2, by key ascending: partition 0 sent "a" and "c" of more, so it may hold
        // "d" uncounted; partition 1 sent every value it has.
        Aggregation.Terms asked = new Aggregation.Terms("tag", 3, 3, 1, Aggregation.TermsOrder.KEY_ASC, null);
        AggregationResult.Terms merged = (AggregationResult.Terms) AggregationMerger.merge("t", asked, List.of(
                terms("t", 9, true, "a", 2, "b", 1, "c", 4),
                terms("t", 0, false, "b", 3, "d", 5)));

        assertThat(described(merged.buckets())).as("d is past partition 0's cut, c: its count there is unknown")
                .containsExactly("a=2", "b=4", "c=4");
        assertThat(merged.docCountErrorUpperBound()).isZero();
        assertThat(merged.sumOtherDocCount()).isEqualTo(9 + 5);

        // With min_doc_count 3, "a" drops out and the next key would be "d", past the cut: the answer stops short.
        AggregationResult.Terms filtered = (AggregationResult.Terms) AggregationMerger.merge("t",
                new Aggregation.Terms("tag", 3, 3, 3, Aggregation.TermsOrder.KEY_ASC, null), List.of(
                        terms("t", 9, true, "a", 2, "b", 1, "c", 4),
                        terms("t", 0, false, "b", 3, "d", 5)));
        assertThat(described(filtered.buckets())).containsExactly("b=4", "c=4");

        // Descending: partition 0's cut is its least key sent.
        AggregationResult.Terms descending = (AggregationResult.Terms) AggregationMerger.merge("t",
                new Aggregation.Terms("tag", 3, 3, 1, Aggregation.TermsOrder.KEY_DESC, null), List.of(
                        terms("t", 1, true, "z", 1, "y", 1, "x", 1),
                        terms("t", 0, false, "y", 2, "w", 7)));
        assertThat(described(descending.buckets())).containsExactly("z=1", "y=3", "x=1");
    }

    @Test
    void termsByAscendingCountHaveAnUnknownBoundOnceAPartitionLeftValuesOut() {
        Aggregation.Terms asked = new Aggregation.Terms("tag", 2, 2, 1, Aggregation.TermsOrder.COUNT_ASC, null);
        AggregationResult.Terms cut = (AggregationResult.Terms) AggregationMerger.merge("t", asked, List.of(
                terms("t", 50, true, "a", 1, "b", 2),
                terms("t", 0, false, "c", 1, "a", 4)));
        assertThat(cut.buckets()).extracting(Bucket::key).containsExactly("c", "b");
        assertThat(cut.docCountErrorUpperBound()).as("Elasticsearch's -1: unknown").isEqualTo(-1);

        AggregationResult.Terms whole = (AggregationResult.Terms) AggregationMerger.merge("t", asked, List.of(
                terms("t", 0, false, "a", 1, "b", 2),
                terms("t", 0, false, "c", 1, "a", 4)));
        assertThat(whole.docCountErrorUpperBound()).isZero();
        assertThat(described(whole.buckets())).containsExactly("c=1", "b=2");
    }

    @Test
    void histogramsHonourMinDocCountOffsetAndExtendedBounds() {
        List<io.hedgerow.common.wire.proto.AggregationResult> parts = List.of(
                buckets("h", 2.5, 3, 12.5, 1), buckets("h", 2.5, 1, 22.5, 4));
        assertThat(described(((AggregationResult.Buckets) AggregationMerger.merge("h",
                new Aggregation.Histogram("n", 5, 0, 2.5, null), parts)).buckets()))
                .containsExactly("2.5=4", "7.5=0", "12.5=1", "17.5=0", "22.5=4");
        assertThat(described(((AggregationResult.Buckets) AggregationMerger.merge("h",
                new Aggregation.Histogram("n", 5, 2, 2.5, null), parts)).buckets()))
                .containsExactly("2.5=4", "22.5=4");
        assertThat(described(((AggregationResult.Buckets) AggregationMerger.merge("h",
                new Aggregation.Histogram("n", 5, 0, 2.5, new Aggregation.ExtendedBounds(-2, 8)), parts)).buckets()))
                .containsExactly("-2.5=0", "2.5=4", "7.5=0", "12.5=1", "17.5=0", "22.5=4");
        assertThat(((AggregationResult.Buckets) AggregationMerger.merge("h",
                new Aggregation.Histogram("n", 5, 0, 0, new Aggregation.ExtendedBounds(0, 14)), List.of())).buckets())
                .as("bounds list empty buckets even without a value").hasSize(3);
    }

    @Test
    void dateHistogramsBucketInTheLocalCalendarOfTheirZone() {
        java.time.ZoneId paris = java.time.ZoneId.of("Europe/Paris");
        Aggregation.DateHistogram months = new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.MONTH, paris, 0,
                0, null);
        // 2024-02-29T23:30Z is already March in Paris.
        long value = java.time.Instant.parse("2024-02-29T23:30:00Z").toEpochMilli();
        long march = java.time.LocalDate.of(2024, 3, 1).atStartOfDay(paris).toInstant().toEpochMilli();
        assertThat(months.bucketOf(value)).isEqualTo(march);
        long april = java.time.LocalDate.of(2024, 4, 1).atStartOfDay(paris).toInstant().toEpochMilli();
        assertThat(months.nextBucket(march)).as("across the change to summer time").isEqualTo(april);
        AggregationResult.Buckets merged = (AggregationResult.Buckets) AggregationMerger.merge("m", months, List.of(
                buckets("m", march, 2), buckets("m", april, 1)));
        assertThat(merged.buckets()).extracting(Bucket::keyAsString)
                .containsExactly("2024-03-01T00:00:00.000+01:00", "2024-04-01T00:00:00.000+02:00");
        // An offset shifts the bounds: days from 06:00 to 06:00 UTC.
        Aggregation.DateHistogram shifted = new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.DAY,
                ZoneOffset.UTC, 6 * 3_600_000L, 0, null);
        assertThat(shifted.bucketOf(java.time.Instant.parse("2024-01-02T05:00:00Z").toEpochMilli()))
                .isEqualTo(java.time.Instant.parse("2024-01-01T06:00:00Z").toEpochMilli());
    }

    @Test
    void hoursInAZoneKeepTheHourThatAFallBackRepeatsAsTwoBuckets() {
        java.time.ZoneId paris = java.time.ZoneId.of("Europe/Paris");
        Aggregation.DateHistogram hours = new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.HOUR, paris, 0, 0,
                null);
        // 2024-10-27: 02:30 summer time (00:30Z), then 02:30 winter time (01:30Z).
        long first = java.time.Instant.parse("2024-10-27T00:30:00Z").toEpochMilli();
        long second = java.time.Instant.parse("2024-10-27T01:30:00Z").toEpochMilli();
        assertThat(hours.bucketOf(first)).isEqualTo(java.time.Instant.parse("2024-10-27T00:00:00Z").toEpochMilli());
        assertThat(hours.bucketOf(second)).isEqualTo(java.time.Instant.parse("2024-10-27T01:00:00Z").toEpochMilli());
        assertThat(hours.nextBucket(hours.bucketOf(first))).isEqualTo(hours.bucketOf(second));
        // A spring-forward day has 23 local hours; a day bucket then is 23 hours long.
        Aggregation.DateHistogram days = new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.DAY, paris, 0, 0,
                null);
        long march31 = java.time.LocalDate.of(2024, 3, 31).atStartOfDay(paris).toInstant().toEpochMilli();
        assertThat(days.nextBucket(march31) - march31).isEqualTo(23 * 3_600_000L);
    }

    @Test
    void keyedRangesSayTheyAreKeyed() {
        Aggregation.Range ranges = new Aggregation.Range("n", List.of(new Aggregation.RangeBucket("low", null, 5.0),
                new Aggregation.RangeBucket(null, 5.0, null)), true);
        AggregationResult.Buckets merged = (AggregationResult.Buckets) AggregationMerger.merge("r", ranges, List.of(
                buckets("r", null, 2, null, 3), buckets("r", null, 1, null, 0)));
        assertThat(merged.keyed()).isTrue();
        assertThat(described(merged.buckets())).containsExactly("low=3", "5.0-*=3");
    }
}
