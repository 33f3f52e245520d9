package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.Aggregation;
import io.hedgerow.api.AggregationResult;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.client.HttpHedgerowClient;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.DocExamples;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Aggregations through the HTTP API of a real cluster (2 leaves, 4 partitions, loopback sockets,
 * real indexes): every kind in one search, against counts worked out from the documents and
 * against the served OpenAPI document; refusals as 400s that name the problem; the result cache
 * keeping searches that differ only in their aggregations apart; a partial answer's aggregations
 * tainted with it; and the remote Java client reading them back.
 */
@Timeout(180)
class AggregationsHttpTest {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 120;

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static final String ADMIN = "admin-token-for-the-aggregations-test-0123456789";
    private static EmbeddedCluster failing;
    private static HttpClient http;
    private static final List<SourceDocument> documents = new ArrayList<>();

    @BeforeAll
    static void startClusters() throws Exception {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("date", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("price", FieldSpec.of(FieldSpec.Type.DOUBLE, true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
        for (int i = 0; i < DOCS; i++) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("title", "debate " + i);
            doc.put("lang", i % 3 == 0 ? "de" : i % 3 == 1 ? "fr" : i % 5 == 0 ? "nl" : "en");
            doc.put("date", LocalDate.of(2004, 1, 1).plusDays(i * 3L).toString());
            doc.put("n", Integer.toString(i % 10));
            doc.put("price", Double.toString(i / 4.0));
            documents.add(new SourceDocument("doc-" + i, doc, i + 1));
        }
        cluster = EmbeddedCluster.builder(dataDir.resolve("full"))
                .documents("aggs", config, documents)
                .leaves(2).partitions(4).replicas(2)
                .adminToken(ADMIN)
                .http(0)
                .start();
        // One copy of each partition, and one of the two leaves stopped: answers cover half the partitions.
        failing = EmbeddedCluster.builder(Files.createDirectories(dataDir.resolve("failing")))
                .documents("aggs", config, documents)
                .leaves(2).partitions(4).replicas(1)
                .http(0)
                .start();
        failing.leaves().get(1).close();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(REQUEST_TIMEOUT).build();
    }

    @AfterAll
    static void stopClusters() {
        if (http != null) {
            http.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (failing != null) {
            failing.close();
        }
    }

    private static final String ALL_KINDS = """
            {"query": "debate", "size": 0,
             "aggs": {
               "langs": {"terms": {"field": "lang", "size": 3}},
               "n_ranges": {"range": {"field": "n", "ranges": [{"to": 3}, {"from": 3, "to": 7, "key": "middle"}, {"from": 7}]}},
               "prices": {"histogram": {"field": "price", "interval": 10}},
               "months": {"date_histogram": {"field": "date", "calendar_interval": "month"}},
               "n_stats": {"stats": {"field": "n"}}
             }}""";

    @Test
    void answersEveryKindInElasticsearchsShapesWithCountsOfTheMatchingDocuments() throws Exception {
        JsonNode body = post(cluster, ALL_KINDS, 200);
        System.out.println("aggregations: " + body.get("aggregations"));

        assertThat(body.get("hits")).isEmpty();
        assertThat(body.get("total_hits").get("value").asLong()).isEqualTo(DOCS);
        JsonNode aggs = body.get("aggregations");
        assertThat(aggs.fieldNames()).toIterable().containsExactly("langs", "n_ranges", "prices", "months", "n_stats");

        JsonNode langs = aggs.get("langs");
        Map<String, Long> byLang = documents.stream().collect(Collectors.groupingBy(d -> d.value("lang"), Collectors.counting()));
        assertThat(langs.get("buckets")).hasSize(3);
        assertThat(bucketCounts(langs)).containsExactly(Map.entry("de", byLang.get("de")), Map.entry("fr", byLang.get("fr")),
                Map.entry("en", byLang.get("en")));
        assertThat(langs.get("doc_count_error_upper_bound").asLong()).isZero();
        assertThat(langs.get("sum_other_doc_count").asLong()).isEqualTo(byLang.get("nl"));

        JsonNode ranges = aggs.get("n_ranges").get("buckets");
        assertThat(ranges.get(0).get("key").asText()).isEqualTo("*-3.0");
        assertThat(ranges.get(0).has("from")).isFalse();
        assertThat(ranges.get(0).get("to").asDouble()).isEqualTo(3.0);
        assertThat(ranges.get(1).get("key").asText()).isEqualTo("middle");
        // n = i % 10: 0..2, 3..6, 7..9 of every ten documents.
        assertThat(List.of(ranges.get(0).get("doc_count").asLong(), ranges.get(1).get("doc_count").asLong(),
                ranges.get(2).get("doc_count").asLong())).containsExactly(36L, 48L, 36L);

        // price = i / 4: 0 .. 29.75, forty documents per width of 10.
        JsonNode prices = aggs.get("prices").get("buckets");
        assertThat(prices).hasSize(3);
        assertThat(prices.get(1).get("key").asDouble()).isEqualTo(10.0);
        assertThat(prices.get(1).get("doc_count").asLong()).isEqualTo(40);

        Map<String, Long> byMonth = new TreeMap<>();
        documents.forEach(d -> byMonth.merge(d.value("date").substring(0, 7) + "-01T00:00:00.000Z", 1L, Long::sum));
        JsonNode months = aggs.get("months").get("buckets");
        Map<String, Long> answered = new TreeMap<>();
        months.forEach(b -> answered.put(b.get("key_as_string").asText(), b.get("doc_count").asLong()));
        assertThat(answered).isEqualTo(byMonth);
        assertThat(months.get(0).get("key").asLong()).isEqualTo(LocalDate.of(2004, 1, 1).toEpochDay() * 86_400_000L);

        JsonNode stats = aggs.get("n_stats");
        assertThat(stats.get("count").asLong()).isEqualTo(DOCS);
        assertThat(stats.get("min").asDouble()).isEqualTo(0.0);
        assertThat(stats.get("max").asDouble()).isEqualTo(9.0);
        assertThat(stats.get("sum").asDouble()).isEqualTo(12 * 45.0);
        assertThat(stats.get("avg").asDouble()).isEqualTo(4.5);
    }

    @Test
    void answersMatchTheServedOpenApiDocument() throws Exception {
        JsonNode document = get(cluster, "/openapi.json");
        SchemaSubsetValidator validator = new SchemaSubsetValidator(document);
        JsonNode answer = post(cluster, ALL_KINDS.replace("\"size\": 0", "\"size\": 2"), 200);

        assertThat(validator.validate(answer, document.at("/components/schemas/SearchResult"),
                "#/components/schemas/SearchResult")).isEmpty();
        assertThat(validator.seen()).contains("#/components/schemas/SearchResult/properties/aggregations");
    }

    @Test
    void refusesBadAggregationsWithA400ThatNamesTheProblem() throws Exception {
        JsonNode unknownField = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"x\": {\"terms\": {\"field\": \"nope\"}}}}", 400);
        assertThat(unknownField.get("detail").asText()).contains("aggs.x").contains("'nope' is not in the index");

        JsonNode wrongType = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"s\": {\"stats\": {\"field\": \"lang\"}}}}", 400);
        assertThat(wrongType.get("detail").asText()).contains("aggs.s").contains("field is keyword");

        JsonNode unknownKind = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"a\": {\"avg\": {\"field\": \"n\"}}}}", 400);
        assertThat(unknownKind.get("detail").asText()).contains("aggs.a: unknown aggregation 'avg'");

        JsonNode tooMany = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"h\": {\"histogram\": {\"field\": \"price\","
                + " \"interval\": 0.001}}}}", 400);
        assertThat(tooMany.get("detail").asText()).contains("aggs.h").contains("buckets");

        JsonNode tooBig = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"t\": {\"terms\": {\"field\": \"lang\","
                + " \"size\": 20000}}}}", 400);
        assertThat(tooBig.get("detail").asText()).contains("size 20000");

        JsonNode badInterval = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"d\": {\"date_histogram\": {\"field\": \"date\","
                + " \"fixed_interval\": \"1 fortnight\"}}}}", 400);
        assertThat(badInterval.get("detail").asText()).contains("aggs.d.date_histogram").contains("fixed_interval");
    }

    @Test
    void theResultCacheKeepsSearchesThatDifferOnlyInTheirAggregationsApart() throws Exception {
        String byLang = "{\"query\": \"debate 7\", \"size\": 1, \"aggs\": {\"a\": {\"terms\": {\"field\": \"lang\"}}}}";
        String byN = "{\"query\": \"debate 7\", \"size\": 1, \"aggs\": {\"a\": {\"terms\": {\"field\": \"n\"}}}}";
        JsonNode first = post(cluster, byLang, 200);
        JsonNode again = post(cluster, byLang, 200);
        JsonNode other = post(cluster, byN, 200);
        JsonNode none = post(cluster, "{\"query\": \"debate 7\", \"size\": 1}", 200);

        assertThat(first.get("cache").asText()).isEqualTo("miss");
        assertThat(again.get("cache").asText()).isEqualTo("hit");
        assertThat(again.get("aggregations")).isEqualTo(first.get("aggregations"));
        assertThat(other.get("cache").asText()).isEqualTo("miss");
        assertThat(other.get("aggregations").get("a").get("buckets").get(0).get("key").isNumber()).isTrue();
        assertThat(none.get("cache").asText()).isEqualTo("miss");
        assertThat(none.has("aggregations")).isFalse();
    }

    @Test
    void aPartialAnswerCarriesItsAggregationsTaintedWithIt() throws Exception {
        JsonNode body = post(failing, "{\"query\": \"debate\", \"size\": 0, \"aggs\": {\"langs\": {\"terms\":"
                + " {\"field\": \"lang\"}}, \"n\": {\"stats\": {\"field\": \"n\"}}}}", 200);

        assertThat(body.get("tainted").asBoolean()).isTrue();
        assertThat(body.get("coverage").get("partitions_answered").asInt()).isLessThan(4);
        long total = body.get("total_hits").get("value").asLong();
        assertThat(total).isLessThan(DOCS);
        // Counted over the partitions that answered, as the hits are: every document has one lang and one n.
        long inBuckets = 0;
        for (JsonNode bucket : body.get("aggregations").get("langs").get("buckets")) {
            inBuckets += bucket.get("doc_count").asLong();
        }
        assertThat(inBuckets).isEqualTo(total);
        assertThat(body.get("aggregations").get("n").get("count").asLong()).isEqualTo(total);
    }

    @Test
    void theRemoteClientSendsAndReadsAggregations() throws Exception {
        Map<String, Aggregation> aggs = new LinkedHashMap<>();
        aggs.put("langs", Aggregation.Terms.of("lang", 2));
        aggs.put("weeks", Aggregation.DateHistogram.fixed("date", 7 * 86_400_000L));
        aggs.put("ranges", new Aggregation.Range("price", List.of(new Aggregation.RangeBucket(null, 5.0, 10.0))));
        aggs.put("stats", new Aggregation.Stats("price"));
        SearchRequest request = SearchRequest.builder("debate").k(0).cache(false).aggs(aggs).build();
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort()))
                .build()) {
            SearchResult remote = client.search(request).get();
            SearchResult embedded = cluster.client().search(request).get();

            assertThat(remote.aggregations()).isEqualTo(embedded.aggregations());
            assertThat(((AggregationResult.Buckets) remote.aggregations().get("ranges")).buckets().get(0).docCount())
                    .isEqualTo(20);
            assertThat(((AggregationResult.Stats) remote.aggregations().get("stats")).count()).isEqualTo(DOCS);
        }
    }

    private static final String WITH_OPTIONS = """
            {"query": "debate", "size": 2,
             "aggs": {
               "rare_langs": {"terms": {"field": "lang", "order": {"_count": "asc"}, "min_doc_count": 20}},
               "langs_by_key": {"terms": {"field": "lang", "order": {"_key": "desc"}, "size": 2}},
               "n_missing": {"terms": {"field": "n", "missing": 42, "size": 20}},
               "n_ranges": {"range": {"field": "n", "keyed": true, "ranges": [{"to": 3}, {"from": 3, "key": "many"}]}},
               "prices": {"histogram": {"field": "price", "interval": 10, "offset": 5, "min_doc_count": 1}},
               "bounded": {"histogram": {"field": "price", "interval": 10, "extended_bounds": {"min": -20, "max": 50}}},
               "paris_months": {"date_histogram": {"field": "date", "calendar_interval": "month", "time_zone": "Europe/Paris"}},
               "shifted_days": {"date_histogram": {"field": "date", "fixed_interval": "30d", "offset": "+6h", "min_doc_count": 1}},
               "price_stats": {"stats": {"field": "price", "missing": 0}}
             }}""";

    @Test
    void answersElasticsearchsOptionsInItsShapes() throws Exception {
        JsonNode aggs = post(cluster, WITH_OPTIONS, 200).get("aggregations");
        System.out.println("aggregations with options: " + aggs);
        Map<String, Long> byLang = documents.stream().collect(Collectors.groupingBy(d -> d.value("lang"), Collectors.counting()));

        // Ascending counts, only those with at least 20 (nl has 8).
        assertThat(byLang.get("nl")).isLessThan(20);
        assertThat(bucketCounts(aggs.get("rare_langs"))).containsExactly(Map.entry("en", byLang.get("en")),
                Map.entry("de", byLang.get("de")), Map.entry("fr", byLang.get("fr")));
        assertThat(bucketCounts(aggs.get("langs_by_key")).keySet()).containsExactly("nl", "fr");
        assertThat(aggs.get("langs_by_key").get("doc_count_error_upper_bound").asLong()).isZero();
        // Every document has an n: the missing value counts nothing.
        assertThat(bucketCounts(aggs.get("n_missing"))).doesNotContainKey("42").hasSize(10);

        JsonNode ranges = aggs.get("n_ranges").get("buckets");
        assertThat(ranges.isObject()).as("keyed: an object by key").isTrue();
        assertThat(ranges.fieldNames()).toIterable().containsExactly("*-3.0", "many");
        assertThat(ranges.get("*-3.0").get("doc_count").asLong()).isEqualTo(36);
        assertThat(ranges.get("many").get("from").asDouble()).isEqualTo(3.0);
        assertThat(ranges.get("many").has("key")).isFalse();

        // price = i / 4 in 0 .. 29.75; with offset 5 the buckets are [-5, 5), [5, 15), [15, 25), [25, 35).
        JsonNode prices = aggs.get("prices").get("buckets");
        assertThat(prices).hasSize(4);
        assertThat(prices.get(0).get("key").asDouble()).isEqualTo(-5.0);
        assertThat(prices.get(0).get("doc_count").asLong()).isEqualTo(20);
        assertThat(prices.get(1).get("doc_count").asLong()).isEqualTo(40);
        JsonNode bounded = aggs.get("bounded").get("buckets");
        assertThat(bounded).hasSize(8);
        assertThat(bounded.get(0).get("key").asDouble()).isEqualTo(-20.0);
        assertThat(bounded.get(7).get("key").asDouble()).isEqualTo(50.0);
        assertThat(bounded.get(7).get("doc_count").asLong()).isZero();

        // Dates are UTC midnights: in Paris the 1st of a month at 00:00Z is already in that month.
        JsonNode months = aggs.get("paris_months").get("buckets");
        assertThat(months.get(0).get("key_as_string").asText()).isEqualTo("2004-01-01T00:00:00.000+01:00");
        assertThat(months.get(0).get("key").asLong()).isEqualTo(java.time.Instant.parse("2003-12-31T23:00:00Z").toEpochMilli());
        assertThat(months.get(4).get("key_as_string").asText()).as("summer time").isEqualTo("2004-05-01T00:00:00.000+02:00");
        long sum = 0;
        for (JsonNode month : months) {
            sum += month.get("doc_count").asLong();
        }
        assertThat(sum).isEqualTo(DOCS);
        for (JsonNode bucket : aggs.get("shifted_days").get("buckets")) {
            assertThat(Math.floorMod(bucket.get("key").asLong(), 86_400_000L)).isEqualTo(6 * 3_600_000L);
        }

        assertThat(aggs.get("price_stats").get("count").asLong()).isEqualTo(DOCS);
    }

    /**
     * Elasticsearch's {@code min_doc_count: 0}: every value of the field in the index is a bucket,
     * those no matching document has with 0, after the counted ones (by count, ties by value), before
     * them under {@code _count asc}; keyword and long fields alike, over four partitions.
     */
    @Test
    void minDocCountZeroListsTheFieldsOtherValuesWithZeroCounts() throws Exception {
        JsonNode onlyDe = post(cluster, """
                {"query": "debate", "size": 0, "filter": {"term": {"lang": "de"}},
                 "aggs": {"langs": {"terms": {"field": "lang", "min_doc_count": 0}},
                          "rare_first": {"terms": {"field": "lang", "min_doc_count": 0, "order": {"_count": "asc"}}},
                          "counted_only": {"terms": {"field": "lang"}}}}""", 200).get("aggregations");
        long de = documents.stream().filter(d -> d.value("lang").equals("de")).count();
        assertThat(bucketCounts(onlyDe.get("langs"))).containsExactly(Map.entry("de", de), Map.entry("en", 0L),
                Map.entry("fr", 0L), Map.entry("nl", 0L));
        assertThat(bucketCounts(onlyDe.get("rare_first"))).containsExactly(Map.entry("en", 0L), Map.entry("fr", 0L),
                Map.entry("nl", 0L), Map.entry("de", de));
        assertThat(bucketCounts(onlyDe.get("counted_only"))).containsExactly(Map.entry("de", de));
        assertThat(onlyDe.get("langs").get("doc_count_error_upper_bound").asLong()).isZero();
        assertThat(onlyDe.get("langs").get("sum_other_doc_count").asLong()).isZero();

        JsonNode lowN = post(cluster, """
                {"query": "debate", "size": 0, "filter": {"range": {"n": {"lt": 3}}},
                 "aggs": {"n": {"terms": {"field": "n", "min_doc_count": 0, "size": 20}},
                          "n_top4": {"terms": {"field": "n", "min_doc_count": 0, "size": 4}}}}""", 200).get("aggregations");
        Map<String, Long> expected = new LinkedHashMap<>();
        for (int n = 0; n < 10; n++) {
            expected.put(Integer.toString(n), n < 3 ? DOCS / 10 : 0L);
        }
        assertThat(bucketCounts(lowN.get("n"))).containsExactlyEntriesOf(expected);
        assertThat(bucketCounts(lowN.get("n_top4"))).containsExactly(Map.entry("0", (long) DOCS / 10),
                Map.entry("1", (long) DOCS / 10), Map.entry("2", (long) DOCS / 10), Map.entry("3", 0L));

        // The remote client sends min_doc_count 0 and reads the zero buckets back.
        SearchRequest request = SearchRequest.builder("debate").k(0).cache(false)
                .filter(io.hedgerow.api.Filter.term("lang", "de"))
                .aggs(Map.of("langs", new Aggregation.Terms("lang", 10, 20, 0, Aggregation.TermsOrder.COUNT_DESC, null)))
                .build();
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort()))
                .build()) {
            SearchResult remote = client.search(request).get();

            assertThat(remote.aggregations()).isEqualTo(cluster.client().search(request).get().aggregations());
            assertThat(((AggregationResult.Terms) remote.aggregations().get("langs")).buckets()).hasSize(4);
        }
    }

    @Test
    void answersWithOptionsMatchTheServedOpenApiDocument() throws Exception {
        JsonNode document = get(cluster, "/openapi.json");
        SchemaSubsetValidator validator = new SchemaSubsetValidator(document);
        JsonNode answer = post(cluster, WITH_OPTIONS, 200);

        assertThat(validator.validate(answer, document.at("/components/schemas/SearchResult"),
                "#/components/schemas/SearchResult")).isEmpty();
    }

    @Test
    void refusesBadOptionsWithA400ThatNamesTheOption() throws Exception {
        JsonNode negativeMin = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"t\": {\"terms\": {\"field\": \"lang\","
                + " \"min_doc_count\": -1}}}}", 400);
        assertThat(negativeMin.get("detail").asText()).contains("aggs.t.terms.min_doc_count: -1 (expected: >= 0");
        JsonNode badMissing = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"t\": {\"terms\": {\"field\": \"n\","
                + " \"missing\": \"none\"}}}}", 400);
        assertThat(badMissing.get("detail").asText()).contains("aggs.t").contains("missing").contains("'none'");
        JsonNode badZone = post(cluster, "{\"query\": \"debate\", \"aggs\": {\"d\": {\"date_histogram\": {\"field\":"
                + " \"date\", \"calendar_interval\": \"day\", \"time_zone\": \"Moon/Tranquility\"}}}}", 400);
        assertThat(badZone.get("detail").asText()).contains("aggs.d.date_histogram.time_zone: 'Moon/Tranquility'");
    }

    @Test
    void theRemoteClientSendsAndReadsTheOptions() throws Exception {
        Map<String, Aggregation> aggs = new LinkedHashMap<>();
        aggs.put("langs", new Aggregation.Terms("lang", 2, 5, 2, Aggregation.TermsOrder.KEY_ASC, "none"));
        aggs.put("months", new Aggregation.DateHistogram("date", 0, Aggregation.CalendarUnit.MONTH,
                java.time.ZoneId.of("America/New_York"), 3_600_000L, 0, new Aggregation.ExtendedBounds(0, 1e11)));
        aggs.put("ranges", new Aggregation.Range("price", List.of(new Aggregation.RangeBucket(null, 5.0, 10.0)), true));
        aggs.put("prices", new Aggregation.Histogram("price", 10, 1, 2.5, null));
        aggs.put("stats", new Aggregation.Stats("price", -1.0));
        SearchRequest request = SearchRequest.builder("debate").k(0).cache(false).aggs(aggs).build();
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://127.0.0.1:" + cluster.httpPort()))
                .build()) {
            SearchResult remote = client.search(request).get();
            SearchResult embedded = cluster.client().search(request).get();

            assertThat(remote.aggregations()).isEqualTo(embedded.aggregations());
            assertThat(((AggregationResult.Buckets) remote.aggregations().get("ranges")).keyed()).isTrue();
            assertThat(((AggregationResult.Buckets) remote.aggregations().get("months")).buckets().get(0).keyAsString())
                    .as("extended down to epoch 0, in New York, an hour on").isEqualTo("1969-12-01T01:00:00.000-05:00");
        }
    }

    private static Map<String, Long> bucketCounts(JsonNode agg) {
        Map<String, Long> counts = new LinkedHashMap<>();
        agg.get("buckets").forEach(b -> counts.put(b.get("key").asText(), b.get("doc_count").asLong()));
        return counts;
    }

    @Test
    void answersEveryAggregationExampleOfTheHttpApiDocAsShown() throws Exception {
        List<DocExamples.PostExample> examples = DocExamples.postSearchExamples("docs/http-api.md").stream()
                .filter(example -> example.body().contains("\"aggs\"")).toList();
        List<String> problems = new ArrayList<>();
        for (DocExamples.PostExample example : examples) {
            // An empty cache, so the answer is a "miss" as shown, whichever test sent the search before.
            HttpResponse<String> cleared = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + cluster.httpPort() + "/admin/cache")).header("Authorization", "Bearer " + ADMIN).DELETE().build(),
                    BodyHandlers.ofString(UTF_8));
            assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(200);
            JsonNode actual = post(cluster, example.body(), example.status());
            String mismatch = DocExamples.mismatch(example.shown(), actual, "");
            if (mismatch != null) {
                problems.add("docs/http-api.md line " + example.line() + ": " + mismatch + "\nreal: " + actual);
            }
        }

        assertThat(problems).as("aggregation examples answered otherwise than docs/http-api.md shows").isEmpty();
        assertThat(examples).as("POST /search examples with aggs in docs/http-api.md").hasSizeGreaterThanOrEqualTo(2);
    }

    private static JsonNode post(EmbeddedCluster to, String json, int status) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpPort() + "/search"))
                .timeout(REQUEST_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        HttpResponse<String> response = http.send(request, BodyHandlers.ofString(UTF_8));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JSON.readTree(response.body());
    }

    private static JsonNode get(EmbeddedCluster from, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + from.httpPort()
                + path)).timeout(REQUEST_TIMEOUT).build(), BodyHandlers.ofString(UTF_8));
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
