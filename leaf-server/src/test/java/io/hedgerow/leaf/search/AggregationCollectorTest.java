package io.hedgerow.leaf.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.Aggregation;
import io.hedgerow.common.wire.proto.AggregationBucket;
import io.hedgerow.common.wire.proto.AggregationRange;
import io.hedgerow.common.wire.proto.AggregationResult;
import io.hedgerow.common.wire.proto.DateHistogramAggregation;
import io.hedgerow.common.wire.proto.Filter;
import io.hedgerow.common.wire.proto.HistogramAggregation;
import io.hedgerow.common.wire.proto.RangeAggregation;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.StatsAggregation;
import io.hedgerow.common.wire.proto.TermsAggregation;
import io.hedgerow.common.wire.proto.TermsFilter;
import io.hedgerow.leaf.index.DocumentMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Aggregations computed by a partition's search of a real Lucene index of several segments (so
 * keyword ordinals fold across segments), in one pass and in slices, against counts worked out by
 * hand; and refused, before the search runs, when the field or the buckets do not fit.
 */
@Timeout(60)
class AggregationCollectorTest {
    @TempDir
    Path dir;

    private ByteBuffersDirectory directory;
    private PartitionSearcher searcher;

    private static IndexConfig config() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("tag", FieldSpec.keyword(true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("price", FieldSpec.of(FieldSpec.Type.DOUBLE, true));
        fields.put("day", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("flag", FieldSpec.of(FieldSpec.Type.BOOLEAN, true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
    }

    /** Seven documents; d5 has no tag, d6 two tags, and d4 two values of n in one bucket. */
    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        docs.add(doc("d0", "red apple", List.of("fruit"), List.of("1"), "0.5", "2024-01-05"));
        docs.add(doc("d1", "green apple", List.of("fruit"), List.of("3"), "1.25", "2024-01-20"));
        docs.add(doc("d2", "red pepper", List.of("veg"), List.of("10"), "2.0", "2024-02-01"));
        docs.add(doc("d3", "red onion", List.of("veg"), List.of("12"), "0.75", "2024-03-31"));
        docs.add(doc("d4", "apple pie", List.of("baked"), List.of("20", "21"), "4.5", "2024-03-01"));
        docs.add(doc("d5", "bread", List.of(), List.of("-5"), "3.0", "2023-12-31"));
        docs.add(doc("d6", "red apple tart", List.of("fruit", "baked"), List.of("7"), "6.0", "2024-01-01"));
        return docs;
    }

    private static SourceDocument doc(String id, String title, List<String> tags, List<String> n, String price, String day) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("title", title);
        if (!tags.isEmpty()) {
            fields.put("tag", tags);
        }
        fields.put("n", n);
        fields.put("price", price);
        fields.put("day", day);
        fields.put("flag", "true");
        return new SourceDocument(id, fields, 1);
    }

    @BeforeEach
    void index() throws Exception {
        IndexConfig config = config();
        PartitionStore store = new PartitionStore(dir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(1), IndexProgress.none())
                .build(store, "index", config, documents());
        IndexContext context = IndexContext.of(store, store.readManifest());
        // The same documents in segments of two, never merged.
        directory = new ByteBuffersDirectory();
        DocumentMapper mapper = new DocumentMapper(config);
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(context.analyzer())
                .setMergePolicy(NoMergePolicy.INSTANCE))) {
            int i = 0;
            for (SourceDocument doc : documents()) {
                writer.addDocument(mapper.toDocument(doc.id(), doc.fields()));
                if (++i % 2 == 0) {
                    writer.commit();
                }
            }
        }
        DirectoryReader reader = DirectoryReader.open(directory);
        assertThat(reader.leaves()).hasSizeGreaterThan(2);
        searcher = PartitionSearcher.of(context, 0, reader);
    }

    @AfterEach
    void close() throws Exception {
        searcher.close();
        directory.close();
    }

    private static Aggregation.Builder agg(String name, String field) {
        return Aggregation.newBuilder().setName(name).setField(field);
    }

    private static Aggregation terms(String name, String field, int shardSize) {
        return agg(name, field).setTerms(TermsAggregation.newBuilder().setShardSize(shardSize)).build();
    }

    private SearchResponse search(String query, Aggregation... aggs) throws Exception {
        SearchRequest request = SearchRequest.newBuilder().setQuery(query).setK(1).addAllAggs(List.of(aggs)).build();
        return searcher.search(searcher.queryOf(request), request, null).build();
    }

    private static List<String> buckets(AggregationResult result) {
        List<String> described = new ArrayList<>();
        for (AggregationBucket bucket : result.getBucketsList()) {
            String key = switch (bucket.getKeyCase()) {
                case TEXT -> bucket.getText();
                case LONG_KEY -> Long.toString(bucket.getLongKey());
                case DOUBLE_KEY -> Double.toString(bucket.getDoubleKey());
                case KEY_NOT_SET -> "";
            };
            described.add(key + "=" + bucket.getDocCount());
        }
        return described;
    }

    private static long millis(String day) {
        return LocalDate.parse(day).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    }

    @Test
    void countsKeywordTermsOncePerDocumentAcrossSegmentsAndSaysWhatShardSizeLeftOut() throws Exception {
        SearchResponse all = search("*:*", terms("tags", "tag", 10), terms("top", "tag", 2));

        // fruit: d0 d1 d6; baked: d4 d6; veg: d2 d3 (ties by value); d5 has none.
        assertThat(buckets(all.getAggs(0))).containsExactly("fruit=3", "baked=2", "veg=2");
        assertThat(all.getAggs(0).getMoreValues()).isFalse();
        assertThat(all.getAggs(0).getSumOtherDocCount()).isZero();
        assertThat(buckets(all.getAggs(1))).containsExactly("fruit=3", "baked=2");
        assertThat(all.getAggs(1).getMoreValues()).isTrue();
        assertThat(all.getAggs(1).getSumOtherDocCount()).isEqualTo(2);
        assertThat(all.getAggs(1).getName()).isEqualTo("top");
    }

    /** min_doc_count 0: the partition's other values of the field follow the matched ones, counted 0. */
    @Test
    void zeroCountsListThePartitionsOtherValuesAfterTheMatchedOnes() throws Exception {
        TermsAggregation.Builder zeros = TermsAggregation.newBuilder().setZeroCounts(true);
        SearchResponse answer = search("pepper",
                agg("tags", "tag").setTerms(zeros.clone().setShardSize(10)).build(),
                agg("n", "n").setTerms(zeros.clone().setShardSize(3)).build(),
                agg("tags_asc", "tag").setTerms(zeros.clone().setShardSize(10)
                        .setOrder(io.hedgerow.common.wire.proto.TermsOrder.COUNT_ASC)).build(),
                agg("n_desc", "n").setTerms(zeros.clone().setShardSize(2)
                        .setOrder(io.hedgerow.common.wire.proto.TermsOrder.KEY_DESC)).build(),
                terms("matched_only", "tag", 10));

        // pepper: d2 only (veg, n 10); the other values are in other segments than d2's.
        assertThat(buckets(answer.getAggs(0))).containsExactly("veg=1", "baked=0", "fruit=0");
        assertThat(answer.getAggs(0).getMoreValues()).isFalse();
        assertThat(buckets(answer.getAggs(1))).containsExactly("10=1", "-5=0", "1=0");
        assertThat(answer.getAggs(1).getMoreValues()).isTrue();
        assertThat(answer.getAggs(1).getSumOtherDocCount()).isZero();
        assertThat(buckets(answer.getAggs(2))).containsExactly("baked=0", "fruit=0", "veg=1");
        assertThat(buckets(answer.getAggs(3))).containsExactly("21=0", "20=0");
        assertThat(buckets(answer.getAggs(4))).containsExactly("veg=1");
    }

    /** min_doc_count 0 makes a bucket of every value: a field with too many is refused, not run. */
    @Test
    void zeroCountsOverAFieldWithTooManyValuesAreRefused() throws Exception {
        TermsAggregation zeros = TermsAggregation.newBuilder().setZeroCounts(true).setShardSize(10).build();
        try (DirectoryReader reader = DirectoryReader.open(directory)) {
            var tags = new AggregationAccumulators.KeywordTerms(agg("tags", "tag").setTerms(zeros).build(), 10, null);
            assertThatThrownBy(() -> tags.addEveryValue(reader, 2, "aggs.tags"))
                    .isInstanceOf(BadQueryException.class)
                    .hasMessage("aggs.tags: min_doc_count 0 over a field with more than 2 distinct values in this"
                            + " partition (expected: at most 2; use min_doc_count 1 or more)");
            var n = new AggregationAccumulators.NumericTerms(agg("n", "n").setTerms(zeros).build(), 10, false, null);
            assertThatThrownBy(() -> n.addEveryValue(reader, 7, "aggs.n")).hasMessageContaining("more than 7 distinct");
            new AggregationAccumulators.NumericTerms(agg("n", "n").setTerms(zeros).build(), 10, false, null)
                    .addEveryValue(reader, 8, "aggs.n"); // exactly 8 values of n: allowed
        }
    }

    @Test
    void aggregatesOnlyTheDocumentsTheQueryAndFilterMatch() throws Exception {
        SearchRequest request = SearchRequest.newBuilder().setQuery("red").setK(1)
                .setFilter(Filter.newBuilder().setTerms(TermsFilter.newBuilder().setField("tag").addValues("fruit")))
                .addAggs(terms("tags", "tag", 10))
                .addAggs(agg("n", "n").setStats(StatsAggregation.getDefaultInstance()))
                .build();
        SearchResponse answer = searcher.search(searcher.queryOf(request), request, null).build();

        // red and fruit: d0 (n 1) and d6 (n 7, also baked).
        assertThat(answer.getTotalHits()).isEqualTo(2);
        assertThat(buckets(answer.getAggs(0))).containsExactly("fruit=2", "baked=1");
        assertThat(answer.getAggs(1).getStats().getCount()).isEqualTo(2);
        assertThat(answer.getAggs(1).getStats().getSum()).isEqualTo(8.0);
    }

    @Test
    void countsNumericTermsRangesHistogramsDateHistogramsAndStats() throws Exception {
        SearchResponse answer = search("*:*",
                terms("n", "n", 3),
                terms("price", "price", 100),
                agg("ranges", "n").setRange(RangeAggregation.newBuilder()
                        .addRanges(AggregationRange.newBuilder().setTo(5))
                        .addRanges(AggregationRange.newBuilder().setFrom(5).setTo(20.5))
                        .addRanges(AggregationRange.newBuilder().setFrom(20))).build(),
                agg("hist", "n").setHistogram(HistogramAggregation.newBuilder().setInterval(10)).build(),
                agg("prices", "price").setHistogram(HistogramAggregation.newBuilder().setInterval(2.5)).build(),
                agg("months", "day").setDateHistogram(DateHistogramAggregation.newBuilder().setCalendarInterval("month")).build(),
                agg("weeks", "day").setDateHistogram(DateHistogramAggregation.newBuilder()
                        .setFixedIntervalMillis(7 * 86_400_000L)).build(),
                agg("stats", "price").setStats(StatsAggregation.getDefaultInstance()).build());

        // n values: 1, 3, 10, 12, {20, 21}, -5, 7: each once; ties by value ascending.
        assertThat(buckets(answer.getAggs(0))).containsExactly("-5=1", "1=1", "3=1");
        assertThat(answer.getAggs(0).getSumOtherDocCount()).isEqualTo(5);
        assertThat(buckets(answer.getAggs(1))).containsExactly("0.5=1", "0.75=1", "1.25=1", "2.0=1", "3.0=1", "4.5=1",
                "6.0=1");
        // d4 (20 and 21) counts once in [5, 20.5) and once in [20, *).
        assertThat(buckets(answer.getAggs(2))).containsExactly("=3", "=4", "=1");
        // Buckets by floor(n / 10) * 10: -10 (-5), 0 (1 3 7), 10 (10 12), 20 (d4 once).
        assertThat(buckets(answer.getAggs(3))).containsExactly("-10.0=1", "0.0=3", "10.0=2", "20.0=1");
        assertThat(buckets(answer.getAggs(4))).containsExactly("0.0=4", "2.5=2", "5.0=1");
        assertThat(buckets(answer.getAggs(5))).containsExactly(millis("2023-12-01") + "=1", millis("2024-01-01") + "=3",
                millis("2024-02-01") + "=1", millis("2024-03-01") + "=2");
        // Weeks from the epoch (a Thursday): every key a multiple of the week.
        for (AggregationBucket bucket : answer.getAggs(6).getBucketsList()) {
            assertThat(bucket.getLongKey() % (7 * 86_400_000L)).isZero();
        }
        assertThat(answer.getAggs(6).getBucketsList().stream().mapToLong(AggregationBucket::getDocCount).sum()).isEqualTo(7);
        var stats = answer.getAggs(7).getStats();
        assertThat(stats.getCount()).isEqualTo(7);
        assertThat(stats.getMin()).isEqualTo(0.5);
        assertThat(stats.getMax()).isEqualTo(6.0);
        assertThat(stats.getSum()).isEqualTo(18.0);
    }

    @Test
    void slicedSearchAggregatesAsTheOnePassDoes() throws Exception {
        Aggregation[] aggs = {terms("tags", "tag", 2), agg("hist", "n").setHistogram(HistogramAggregation.newBuilder()
                .setInterval(5)).build(), agg("stats", "n").setStats(StatsAggregation.getDefaultInstance()).build()};
        SearchRequest request = SearchRequest.newBuilder().setQuery("*:*").setK(3).addAllAggs(List.of(aggs)).build();
        AtomicLong clock = new AtomicLong();
        SlicedSearch<?, ? extends TopDocs> sliced = searcher.startSliced(searcher.queryOf(request), request, null,
                clock::incrementAndGet, SlicedSearch.Windows.fixed(1));
        int steps = 0;
        while (sliced.step(1)) {
            steps++;
        }
        SearchResponse slicedAnswer = searcher.response(request, sliced.result(), sliced.cutShort()).build();

        assertThat(steps).isGreaterThan(3);
        assertThat(slicedAnswer.getAggsList()).isEqualTo(search("*:*", aggs).getAggsList());
        assertThat(slicedAnswer.getHitsCount()).isEqualTo(3);
    }

    @Test
    void aSearchWithoutAggregationsAnswersNone() throws Exception {
        SearchResponse answer = search("apple");

        assertThat(answer.getAggsCount()).isZero();
        assertThat(answer.getTotalHits()).isEqualTo(4);
    }

    @Test
    void refusesAnUnknownFieldAWrongTypeAndTooManyBucketsBeforeRunning() {
        assertThatThrownBy(() -> search("*:*", terms("t", "nope", 10)))
                .isInstanceOf(BadQueryException.class)
                .hasMessageContaining("aggs.t (terms on 'nope')").hasMessageContaining("not in the index");
        assertThatThrownBy(() -> search("*:*", terms("t", "title", 10)))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("field is text");
        assertThatThrownBy(() -> search("*:*", agg("s", "tag").setStats(StatsAggregation.getDefaultInstance()).build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("field is keyword")
                .hasMessageContaining("a long, double or date field");
        assertThatThrownBy(() -> search("*:*", agg("s", "flag").setStats(StatsAggregation.getDefaultInstance()).build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("field is boolean");
        assertThatThrownBy(() -> search("*:*", agg("h", "n").setHistogram(HistogramAggregation.newBuilder()
                .setInterval(0.001)).build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("buckets over this partition's values");
        assertThatThrownBy(() -> search("*:*", agg("d", "day").setDateHistogram(DateHistogramAggregation.newBuilder()
                .setFixedIntervalMillis(1000)).build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("buckets over this partition's values");
        assertThatThrownBy(() -> search("*:*", agg("d", "day").setDateHistogram(DateHistogramAggregation.newBuilder()
                .setCalendarInterval("fortnight")).build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("calendar_interval: 'fortnight'");
        assertThatThrownBy(() -> search("*:*", agg("x", "n").build()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("no kind");
    }

    @Test
    void aggregationsAddTheirMatchesToTheCostEstimateAndCostNothingWithout() throws Exception {
        SearchRequest plain = SearchRequest.newBuilder().setQuery("apple").setK(1).build();
        SearchRequest twoAggs = plain.toBuilder().addAggs(terms("tags", "tag", 10))
                .addAggs(agg("n", "n").setStats(StatsAggregation.getDefaultInstance())).build();
        QueryCost alone = searcher.prepare(searcher.queryOf(plain), plain).cost();
        QueryCost aggregated = searcher.prepare(searcher.queryOf(twoAggs), twoAggs).cost();

        assertThat(alone).isEqualTo(searcher.prepare(searcher.queryOf(plain)).cost());
        // "apple" is in 4 documents: each aggregation reads a value of each.
        assertThat(alone.postings()).isEqualTo(4);
        assertThat(aggregated.postings()).isEqualTo(4 + 2 * 4);
        assertThat(aggregated.estimate()).isEqualTo(alone.estimate() + 8);
    }

    @Test
    void aSortedPageCarriesItsSortValuesAndTheAggregationsOfEveryMatch() throws Exception {
        SearchRequest request = SearchRequest.newBuilder().setQuery("apple").setK(2)
                .addSort(io.hedgerow.common.wire.proto.SortField.newBuilder().setField("price").setDescending(true))
                .addAggs(agg("stats", "price").setStats(StatsAggregation.getDefaultInstance())).build();
        SearchResponse answer = searcher.search(searcher.queryOf(request), request, null).build();

        // apple: d0 (0.5), d1 (1.25), d4 (4.5), d6 (6.0); the top 2 by price, the stats of all four.
        assertThat(answer.getHitsList()).extracting(hit -> hit.getId()).containsExactly("d6", "d4");
        assertThat(answer.getHits(0).getSortValuesCount()).isEqualTo(2);
        assertThat(answer.getAggs(0).getStats().getCount()).isEqualTo(4);
        assertThat(answer.getAggs(0).getStats().getSum()).isEqualTo(12.25);
        assertThat(answer.getTotalHits()).isEqualTo(4);
    }
}
