package io.hedgerow.root.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.AggregationResult.Bucket;
import io.hedgerow.api.Filter;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded aggregation requests over 8 real partitions (each partition's own search, then {@link
 * AggregationMerger}) against the same aggregations worked out in plain Java from the documents
 * that one Lucene index over the same documents matches. Terms are compared exactly when the shard
 * size covers every value; otherwise against Elasticsearch's guarantees (no count too high, none
 * lower than its true count by more than the error bound, everything counted once). The seed is
 * printed with each failure: change {@link #SEED} to rerun another.
 */
@Timeout(300)
class AggregationEquivalenceTest {
    private static final long SEED = 0xA6_2026_1128L;
    private static final int DOCS = 600;
    private static final int REQUESTS = 1000;
    private static final int PARTITIONS = 8;
    private static final String[] WORDS = {"hedge", "hawthorn", "bramble", "meadow", "ditch", "willow"};
    private static final String[] CATEGORIES = {"alpha", "beta", "gamma", "delta", "Zeta", "éta"};
    /** 2023-01-01T00:00Z, the first instant days are drawn from (over two years). */
    private static final long START = Instant.parse("2023-01-01T00:00:00Z").toEpochMilli();
    private static final long DAY = 86_400_000L;

    /** The zones date histograms are drawn in: UTC, two with daylight saving, a fixed offset, and a half-hour DST. */
    private static final ZoneId[] ZONES = {ZoneOffset.UTC, ZoneId.of("Europe/Paris"), ZoneId.of("America/New_York"),
            ZoneOffset.ofHoursMinutes(5, 30), ZoneId.of("Australia/Lord_Howe")};
    private static final DateTimeFormatter KEY_AS_STRING = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    @TempDir
    Path dir;
    /** Terms by key whose answer was shorter than the truth's because a partition's cut came first. */
    private int keyOrderCut;
    /** Buckets of min_doc_count 0 counted 0: values of the index no matching document has. */
    private int zeroBuckets;

    private static List<SourceDocument> documents(Random random) {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            StringBuilder title = new StringBuilder();
            for (int w = 1 + random.nextInt(3); w > 0; w--) {
                title.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            fields.put("title", title.toString().strip());
            if (random.nextInt(8) != 0) {
                // Common categories, and a long tail of rare ones that small shard sizes cut.
                fields.put("cat", random.nextInt(5) == 0
                        ? List.of(category(random), category(random), category(random))
                        : category(random));
            }
            if (random.nextInt(8) != 0) {
                fields.put("price", Double.toString((random.nextInt(400) - 100) / 8.0));
            }
            if (random.nextInt(8) != 0) {
                fields.put("qty", random.nextInt(5) == 0
                        ? List.of(Long.toString(random.nextInt(60) - 10), Long.toString(random.nextInt(60) - 10))
                        : Long.toString(random.nextInt(60) - 10));
            }
            if (random.nextInt(8) != 0) {
                long millis = START + (long) random.nextInt(730) * DAY + (long) random.nextInt(24) * 3_600_000L;
                fields.put("day", random.nextInt(10) == 0
                        ? List.of(Instant.ofEpochMilli(millis).toString(), Instant.ofEpochMilli(millis + 40 * DAY).toString())
                        : Instant.ofEpochMilli(millis).toString());
            }
            fields.put("flag", Boolean.toString(random.nextBoolean()));
            docs.add(new SourceDocument("d" + i, fields, i + 1));
        }
        return docs;
    }

    private static String category(Random random) {
        return random.nextInt(3) == 0 ? "tail" + random.nextInt(40) : CATEGORIES[random.nextInt(CATEGORIES.length)];
    }

    @Test
    void mergedAggregationsOverEightPartitionsMatchOneIndex() throws Exception {
        System.out.println("AggregationEquivalenceTest seed: " + SEED);
        Random random = new Random(SEED);
        Random zeros = new Random(SEED + 1);
        List<SourceDocument> docs = documents(random);
        Map<String, SourceDocument> byId = new HashMap<>();
        docs.forEach(doc -> byId.put(doc.id(), doc));
        int exactTerms = 0;
        int boundedTerms = 0;
        keyOrderCut = 0;
        zeroBuckets = 0;
        int nonEmpty = 0;
        try (EquivalenceIndex index = EquivalenceIndex.build(dir, docs, PARTITIONS)) {
            DirectoryReader reader = index.reader;
            IndexSearcher reference = index.reference;
            for (int q = 0; q < REQUESTS; q++) {
                String text = random.nextInt(3) == 0 ? "*:*" : WORDS[random.nextInt(WORDS.length)];
                Filter filter = random.nextInt(3) == 0 ? randomFilter(random) : null;
                Map<String, Aggregation> aggs = new LinkedHashMap<>();
                for (int a = 1 + random.nextInt(3); a > 0; a--) {
                    aggs.put("a" + a, randomAggregation(random, zeros));
                }
                io.hedgerow.api.SearchRequest api = io.hedgerow.api.SearchRequest.builder(text).k(0).filter(filter)
                        .aggs(aggs).build();
                SearchRequest wire = SearchRequest.newBuilder().setQuery(text).setK(1).setTotalHitsThreshold(1)
                        .mergeFrom(WireShape.of(api)).build();
                String what = "seed " + SEED + ", request " + q + ": " + text + " filter " + filter + " aggs " + aggs;

                SearchResponse[] answers = index.searchAll(wire);
                long total = 0;
                for (SearchResponse answer : answers) {
                    total += answer.getTotalHits();
                }
                Map<String, AggregationResult> merged = AggregationMerger.merge(aggs, answers);

                Query query = index.partitions.get(0).queryOf(wire);
                List<SourceDocument> matching = matching(reference, reader, query, byId);
                assertThat(total).as(what + ": every match counted, whatever the threshold").isEqualTo(matching.size());
                if (!matching.isEmpty()) {
                    nonEmpty++;
                }
                assertThat(merged.keySet()).as(what).containsExactlyElementsOf(aggs.keySet());
                for (Map.Entry<String, Aggregation> agg : aggs.entrySet()) {
                    String at = what + " / " + agg.getKey();
                    AggregationResult result = merged.get(agg.getKey());
                    switch (agg.getValue()) {
                        case Aggregation.Terms terms -> {
                            if (checkTerms(terms, (AggregationResult.Terms) result, matching, docs, at)) {
                                exactTerms++;
                            } else {
                                boundedTerms++;
                            }
                        }
                        case Aggregation.Range range -> {
                            assertThat(((AggregationResult.Buckets) result).buckets()).as(at)
                                    .isEqualTo(expectedRanges(range, matching));
                            assertThat(((AggregationResult.Buckets) result).keyed()).as(at).isEqualTo(range.keyed());
                        }
                        case Aggregation.Histogram histogram -> assertThat(((AggregationResult.Buckets) result).buckets())
                                .as(at).isEqualTo(expectedHistogram(histogram, matching));
                        case Aggregation.DateHistogram dates -> {
                            List<Bucket> buckets = ((AggregationResult.Buckets) result).buckets();
                            assertThat(described(buckets)).as(at).isEqualTo(expectedDates(dates, matching));
                            for (Bucket bucket : buckets) {
                                // In the zone's local time: 2024-03-01T00:00:00.000+01:00 for Paris's March.
                                assertThat(bucket.keyAsString()).as(at).isEqualTo(ZonedDateTime.ofInstant(
                                        Instant.ofEpochMilli((Long) bucket.key()), dates.timeZone()).format(KEY_AS_STRING));
                            }
                        }
                        case Aggregation.Stats stats -> checkStats(stats, (AggregationResult.Stats) result, matching, at);
                    }
                }
            }
        }
        System.out.println("terms compared exactly: " + exactTerms + ", against the error bound: " + boundedTerms
                + ", by key cut short: " + keyOrderCut + ", zero-count buckets of min_doc_count 0: " + zeroBuckets);
        assertThat(nonEmpty).as("requests that matched something").isGreaterThan(REQUESTS / 2);
        assertThat(exactTerms).as("terms aggregations compared exactly").isGreaterThan(50);
        assertThat(boundedTerms).as("terms aggregations cut by their shard size").isGreaterThan(20);
        assertThat(keyOrderCut).as("terms by key whose answer stopped at a partition's cut").isPositive();
        assertThat(zeroBuckets).as("buckets of values no matching document has, under min_doc_count 0").isGreaterThan(20);
    }

    /**
     * A random aggregation; {@code zeros} alone decides min_doc_count 0 for terms, so that the
     * requests {@code random} draws are those the seed drew before min_doc_count 0 was drawn.
     */
    private static Aggregation randomAggregation(Random random, Random zeros) {
        String numeric = new String[] {"price", "qty", "day"}[random.nextInt(3)];
        return switch (random.nextInt(5)) {
            case 0 -> {
                String field = random.nextInt(2) == 0 ? "cat" : new String[] {"price", "qty", "day"}[random.nextInt(3)];
                int size = 1 + random.nextInt(8);
                int shardSize = switch (random.nextInt(4)) {
                    case 0 -> Aggregation.Terms.defaultShardSize(size);
                    case 1 -> size + random.nextInt(3);
                    default -> 2000; // covers every value of every field
                };
                Aggregation.TermsOrder order = random.nextInt(3) == 0 ? Aggregation.TermsOrder.COUNT_DESC
                        : Aggregation.TermsOrder.values()[random.nextInt(4)];
                int minDocCount = random.nextInt(3) == 0 ? 1 + random.nextInt(4) : 1;
                if (minDocCount == 1 && zeros.nextInt(3) == 0) {
                    minDocCount = 0; // every value of the index, those no match has counted 0
                }
                Object missing = random.nextInt(3) != 0 ? null : switch (field) {
                    case "cat" -> random.nextBoolean() ? "alpha" : "(none)"; // merged with a real value, or its own
                    case "price" -> random.nextBoolean() ? 5.0 : -99.5;
                    case "qty" -> random.nextBoolean() ? 3L : 1000L;
                    default -> START + random.nextInt(730) * DAY;
                };
                yield new Aggregation.Terms(field, size, shardSize, minDocCount, order, missing);
            }
            case 1 -> {
                List<Aggregation.RangeBucket> ranges = new ArrayList<>();
                for (int r = 1 + random.nextInt(4); r > 0; r--) {
                    double a = rangeEnd(random, numeric);
                    double b = rangeEnd(random, numeric);
                    Double from = random.nextInt(4) == 0 ? null : Math.min(a, b);
                    Double to = from != null && random.nextInt(4) == 0 ? null : Math.max(a, b);
                    ranges.add(new Aggregation.RangeBucket(random.nextBoolean() ? "r" + r : null, from, to));
                }
                boolean keyed = random.nextInt(3) == 0
                        && ranges.stream().map(Aggregation.RangeBucket::key).distinct().count() == ranges.size();
                yield new Aggregation.Range(numeric, ranges, keyed);
            }
            case 2 -> {
                double interval = switch (numeric) {
                    case "price" -> new double[] {0.5, 2.5, 7, 10}[random.nextInt(4)];
                    case "qty" -> new double[] {1, 3, 10, 25}[random.nextInt(4)];
                    default -> new double[] {DAY, 7.5 * DAY, 90 * DAY}[random.nextInt(3)];
                };
                double offset = random.nextInt(3) == 0 ? Math.floor(random.nextDouble() * interval * 4) / 4 : 0;
                int minDocCount = random.nextInt(3) == 0 ? 1 + random.nextInt(3) : 0;
                Aggregation.ExtendedBounds bounds = null;
                if (minDocCount == 0 && random.nextInt(3) == 0) {
                    double a = rangeEnd(random, numeric) - 5 * interval;
                    bounds = new Aggregation.ExtendedBounds(a, a + random.nextInt(8) * interval);
                }
                yield new Aggregation.Histogram(numeric, interval, minDocCount, offset, bounds);
            }
            case 3 -> {
                long fixed = random.nextBoolean() ? new long[] {DAY, 12 * 3_600_000L, 10 * DAY}[random.nextInt(3)] : 0;
                Aggregation.CalendarUnit unit = fixed > 0 ? null : Aggregation.CalendarUnit.values()[2 + random.nextInt(5)];
                ZoneId zone = random.nextInt(3) == 0 ? ZoneOffset.UTC : ZONES[random.nextInt(ZONES.length)];
                long offset = random.nextInt(3) == 0 ? (random.nextInt(49) - 24) * 3_600_000L : 0;
                int minDocCount = random.nextInt(3) == 0 ? 1 + random.nextInt(3) : 0;
                Aggregation.ExtendedBounds bounds = null;
                if (minDocCount == 0 && random.nextInt(3) == 0) {
                    double a = rangeEnd(random, "day");
                    bounds = new Aggregation.ExtendedBounds(a, a + random.nextInt(120) * (double) DAY);
                }
                yield new Aggregation.DateHistogram("day", fixed, unit, zone, offset, minDocCount, bounds);
            }
            default -> new Aggregation.Stats(numeric, random.nextInt(3) == 0 ? (double) (random.nextInt(40) - 10) : null);
        };
    }

    private static double rangeEnd(Random random, String field) {
        return switch (field) {
            case "price" -> (random.nextInt(400) - 100) / 8.0;
            case "qty" -> random.nextInt(60) - 10;
            default -> START + (double) random.nextInt(730) * DAY;
        };
    }

    private static Filter randomFilter(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> Filter.term("flag", Boolean.toString(random.nextBoolean()));
            case 1 -> new Filter.Range("qty", Integer.toString(random.nextInt(30)), null, null, null);
            default -> Filter.term("cat", CATEGORIES[random.nextInt(CATEGORIES.length)]);
        };
    }

    /** The documents the one index matches. */
    private static List<SourceDocument> matching(IndexSearcher reference, DirectoryReader reader, Query query,
            Map<String, SourceDocument> byId) throws Exception {
        TopDocs top = reference.search(query, DOCS);
        int[] docs = Arrays.stream(top.scoreDocs).mapToInt(hit -> hit.doc).sorted().toArray();
        SortedDocValues ids = MultiDocValues.getSortedValues(reader, IndexConfig.ID_FIELD);
        List<SourceDocument> matching = new ArrayList<>();
        for (int doc : docs) {
            assertThat(ids.advanceExact(doc)).isTrue();
            matching.add(byId.get(ids.lookupOrd(ids.ordValue()).utf8ToString()));
        }
        return matching;
    }

    /** A document's values of a field, distinct, as Strings (List order). */
    private static List<String> texts(SourceDocument doc, String field) {
        Object value = doc.fields().get(field);
        if (value == null) {
            return List.of();
        }
        if (value instanceof List<?> list) {
            return list.stream().map(Object::toString).toList();
        }
        return List.of(value.toString());
    }

    /** Values as the aggregation keys them: Strings, Longs (qty, day in epoch millis) or Doubles (price). */
    private static List<Object> keys(SourceDocument doc, String field) {
        List<Object> keys = new ArrayList<>();
        for (String text : texts(doc, field)) {
            keys.add(switch (field) {
                case "cat" -> text;
                case "qty" -> Long.parseLong(text);
                case "price" -> Double.parseDouble(text);
                default -> Instant.parse(text).toEpochMilli();
            });
        }
        return keys;
    }

    private static List<Double> numbers(SourceDocument doc, String field) {
        return keys(doc, field).stream().map(key -> ((Number) key).doubleValue()).toList();
    }

    /** True when compared exactly; false when against the error bound only. */
    private boolean checkTerms(Aggregation.Terms terms, AggregationResult.Terms result, List<SourceDocument> matching,
            List<SourceDocument> all, String at) {
        Map<Object, Long> counts = new HashMap<>();
        long pairs = 0;
        for (SourceDocument doc : matching) {
            List<Object> keys = keys(doc, terms.field());
            if (keys.isEmpty() && terms.missing() != null) {
                // Typed as the field's values: a Long missing on a double field is a Double there.
                keys = List.of(terms.field().equals("price") ? ((Number) terms.missing()).doubleValue() : terms.missing());
            }
            for (Object key : new LinkedHashSet<>(keys)) {
                counts.merge(key, 1L, Long::sum);
                pairs++;
            }
        }
        if (terms.minDocCount() == 0) {
            // Elasticsearch's min_doc_count 0: every value of the index (no deletes here), 0 when unmatched.
            for (SourceDocument doc : all) {
                for (Object key : keys(doc, terms.field())) {
                    counts.putIfAbsent(key, 0L);
                }
            }
            zeroBuckets += (int) result.buckets().stream().filter(bucket -> bucket.docCount() == 0).count();
        }
        Comparator<Map.Entry<Object, Long>> byKey = Map.Entry.comparingByKey(AggregationEquivalenceTest::compareKeys);
        Comparator<Map.Entry<Object, Long>> order = switch (terms.order()) {
            case COUNT_DESC -> Comparator.<Map.Entry<Object, Long>>comparingLong(e -> -e.getValue()).thenComparing(byKey);
            case COUNT_ASC -> Comparator.<Map.Entry<Object, Long>>comparingLong(Map.Entry::getValue).thenComparing(byKey);
            case KEY_ASC -> byKey;
            case KEY_DESC -> byKey.reversed();
        };
        List<Bucket> expected = counts.entrySet().stream().sorted(order).filter(e -> e.getValue() >= terms.minDocCount())
                .map(e -> Bucket.of(e.getKey(), e.getValue())).toList();
        long inBuckets = result.buckets().stream().mapToLong(Bucket::docCount).sum();
        assertThat(inBuckets + result.sumOtherDocCount()).as(at + ": every value counted once").isEqualTo(pairs);
        if (terms.shardSize() >= 2000) {
            assertThat(result.buckets()).as(at).isEqualTo(expected.stream().limit(terms.size()).toList());
            assertThat(result.docCountErrorUpperBound()).as(at).isZero();
            return true;
        }
        assertThat(result.buckets().size()).as(at).isLessThanOrEqualTo(Math.min(terms.size(), expected.size()));
        for (Bucket bucket : result.buckets()) {
            assertThat(bucket.docCount()).as(at + " " + bucket.key() + ": at least min_doc_count")
                    .isGreaterThanOrEqualTo(terms.minDocCount());
            assertThat(bucket.docCount()).as(at + " " + bucket.key() + ": never more than its true count")
                    .isLessThanOrEqualTo(counts.getOrDefault(bucket.key(), 0L));
        }
        switch (terms.order()) {
            case KEY_ASC, KEY_DESC -> {
                // Elasticsearch's bound under a key order is 0: so every count is exact, in order, and
                // nothing is skipped; the answer may only stop short, at a partition's cut.
                assertThat(result.docCountErrorUpperBound()).as(at).isZero();
                assertThat(result.buckets()).as(at + ": a prefix of the true answer")
                        .isEqualTo(expected.subList(0, result.buckets().size()));
                if (result.buckets().size() < Math.min(terms.size(), expected.size())) {
                    keyOrderCut++;
                }
            }
            case COUNT_ASC -> {
                // Unknown (-1) once a partition had more values than it sent; exact when 0.
                assertThat(result.docCountErrorUpperBound()).as(at).isIn(-1L, 0L);
            }
            case COUNT_DESC -> {
                if (terms.minDocCount() <= 1) {
                    assertThat(result.buckets().size()).as(at).isEqualTo(Math.min(terms.size(), expected.size()));
                }
                for (Bucket bucket : result.buckets()) {
                    assertThat(counts.getOrDefault(bucket.key(), 0L) - bucket.docCount())
                            .as(at + " " + bucket.key() + ": short by at most the bound")
                            .isLessThanOrEqualTo(result.docCountErrorUpperBound());
                }
            }
        }
        if (result.docCountErrorUpperBound() == 0) {
            assertThat(described(result.buckets())).as(at + ": exact when the bound is 0")
                    .isEqualTo(described(expected.stream().limit(result.buckets().size()).toList()));
            if (!terms.order().byKey()) {
                assertThat(result.buckets().size()).as(at).isEqualTo(Math.min(terms.size(), expected.size()));
            }
        }
        return false;
    }

    private static int compareKeys(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return new BytesRef(x).compareTo(new BytesRef(y));
        }
        return Double.compare(((Number) a).doubleValue(), ((Number) b).doubleValue());
    }

    private static List<Bucket> expectedRanges(Aggregation.Range range, List<SourceDocument> matching) {
        List<Bucket> buckets = new ArrayList<>();
        for (Aggregation.RangeBucket r : range.ranges()) {
            long count = matching.stream().filter(doc -> numbers(doc, range.field()).stream().anyMatch(v ->
                    (r.from() == null || v >= r.from()) && (r.to() == null || v < r.to()))).count();
            buckets.add(new Bucket(r.key(), null, count, r.from(), r.to()));
        }
        return buckets;
    }

    private static List<Bucket> expectedHistogram(Aggregation.Histogram histogram, List<SourceDocument> matching) {
        TreeMap<Long, Long> counts = new TreeMap<>();
        for (SourceDocument doc : matching) {
            Set<Long> buckets = new LinkedHashSet<>();
            for (double v : numbers(doc, histogram.field())) {
                buckets.add((long) Math.floor((v - histogram.offset()) / histogram.interval()));
            }
            buckets.forEach(b -> counts.merge(b, 1L, Long::sum));
        }
        List<Bucket> buckets = new ArrayList<>();
        if (histogram.minDocCount() > 0) {
            counts.forEach((i, count) -> {
                if (count >= histogram.minDocCount()) {
                    buckets.add(Bucket.of(i * histogram.interval() + histogram.offset(), count));
                }
            });
            return buckets;
        }
        TreeSet<Long> span = new TreeSet<>(counts.keySet());
        if (histogram.extendedBounds() != null) {
            span.add((long) Math.floor((histogram.extendedBounds().min() - histogram.offset()) / histogram.interval()));
            span.add((long) Math.floor((histogram.extendedBounds().max() - histogram.offset()) / histogram.interval()));
        }
        if (!span.isEmpty()) {
            for (long i = span.first(); i <= span.last(); i++) {
                buckets.add(Bucket.of(i * histogram.interval() + histogram.offset(), counts.getOrDefault(i, 0L)));
            }
        }
        return buckets;
    }

    /** Buckets as "ISO start=count", worked out with java.time in the histogram's zone. */
    private static List<String> expectedDates(Aggregation.DateHistogram dates, List<SourceDocument> matching) {
        TreeMap<Long, Long> counts = new TreeMap<>();
        for (SourceDocument doc : matching) {
            Set<Long> buckets = new LinkedHashSet<>();
            for (Object millis : keys(doc, "day")) {
                buckets.add(start(dates, (Long) millis));
            }
            buckets.forEach(b -> counts.merge(b, 1L, Long::sum));
        }
        List<String> described = new ArrayList<>();
        if (dates.minDocCount() > 0) {
            counts.forEach((key, count) -> {
                if (count >= dates.minDocCount()) {
                    described.add(Instant.ofEpochMilli(key) + "=" + count);
                }
            });
            return described;
        }
        TreeSet<Long> keys = new TreeSet<>(counts.keySet());
        if (dates.extendedBounds() != null) {
            keys.add(start(dates, (long) dates.extendedBounds().min()));
            keys.add(start(dates, (long) dates.extendedBounds().max()));
        }
        if (!keys.isEmpty()) {
            long last = keys.last();
            for (long key = keys.first(); key <= last; key = next(dates, key)) {
                keys.add(key);
            }
            for (long key : keys) {
                described.add(Instant.ofEpochMilli(key) + "=" + counts.getOrDefault(key, 0L));
            }
        }
        return described;
    }

    /** The bucket's start: the local unit (or fixed interval of local time) that holds millis - offset, plus offset. */
    private static long start(Aggregation.DateHistogram dates, long millis) {
        ZoneId zone = dates.timeZone();
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis - dates.offsetMillis()), zone);
        LocalDateTime start;
        if (dates.calendarInterval() == null) {
            long localMillis = local.toInstant(ZoneOffset.UTC).toEpochMilli();
            long floor = Math.floorDiv(localMillis, dates.fixedIntervalMillis()) * dates.fixedIntervalMillis();
            start = LocalDateTime.ofInstant(Instant.ofEpochMilli(floor), ZoneOffset.UTC);
        } else {
            LocalDateTime day = local.truncatedTo(ChronoUnit.DAYS);
            start = switch (dates.calendarInterval()) {
                case DAY -> day;
                case WEEK -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                case MONTH -> day.withDayOfMonth(1);
                case QUARTER -> day.withDayOfMonth(1).withMonth((day.getMonthValue() - 1) / 3 * 3 + 1);
                case YEAR -> day.withDayOfYear(1);
                default -> throw new IllegalArgumentException(dates.calendarInterval().toString());
            };
        }
        return start.atZone(zone).toInstant().toEpochMilli() + dates.offsetMillis();
    }

    private static long next(Aggregation.DateHistogram dates, long start) {
        ZoneId zone = dates.timeZone();
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(start - dates.offsetMillis()), zone);
        LocalDateTime next = dates.calendarInterval() == null ? local.plus(dates.fixedIntervalMillis(), ChronoUnit.MILLIS)
                : switch (dates.calendarInterval()) {
                    case DAY -> local.plusDays(1);
                    case WEEK -> local.plusWeeks(1);
                    case MONTH -> local.plusMonths(1);
                    case QUARTER -> local.plusMonths(3);
                    case YEAR -> local.plusYears(1);
                    default -> throw new IllegalArgumentException(dates.calendarInterval().toString());
                };
        return next.atZone(zone).toInstant().toEpochMilli() + dates.offsetMillis();
    }

    private static List<String> described(List<Bucket> buckets) {
        return buckets.stream().map(b -> (b.key() instanceof Long l ? Instant.ofEpochMilli(l).toString() : b.key())
                + "=" + b.docCount()).toList();
    }

    private static void checkStats(Aggregation.Stats stats, AggregationResult.Stats result, List<SourceDocument> matching,
            String at) {
        List<Double> values = matching.stream().flatMap(doc -> {
            List<Double> numbers = numbers(doc, stats.field());
            return numbers.isEmpty() && stats.missing() != null ? List.of(stats.missing()).stream() : numbers.stream();
        }).toList();
        assertThat(result.count()).as(at).isEqualTo(values.size());
        if (values.isEmpty()) {
            assertThat(result.min()).as(at).isNaN();
            return;
        }
        assertThat(result.min()).as(at).isEqualTo(values.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
        assertThat(result.max()).as(at).isEqualTo(values.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
        double sum = values.stream().mapToDouble(Double::doubleValue).sum();
        // Added in another order: equal but for rounding (dates are ~1.7e12 each).
        assertThat(result.sum()).as(at).isCloseTo(sum, within(Math.abs(sum) * 1e-12 + 1e-9));
    }
}
