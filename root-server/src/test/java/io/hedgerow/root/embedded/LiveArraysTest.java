package io.hedgerow.root.embedded;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-valued fields (JSON arrays) on the live write path behave as in the offline build: the same
 * documents indexed from a file into one cluster and written through {@code /_bulk} into another
 * answer the same searches, filters, sorts and terms aggregation alike; a document read back gives
 * an array for a field written as one; a bad value inside an array is refused with its field and line.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LiveArraysTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DOCS = 40;
    private static final String[] TAGS = {"red", "green", "blue", "amber", "violet"};
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static IndexConfig config() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("tags", FieldSpec.keyword(true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        fields.put("price", FieldSpec.of(FieldSpec.Type.DOUBLE, true));
        fields.put("day", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("flag", FieldSpec.of(FieldSpec.Type.BOOLEAN, true));
        return new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of("title"), null);
    }

    /** Arrays of 0 to 3 values, single values and missing fields, deterministic. */
    private static List<SourceDocument> documents() {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("title", "hedge " + (i % 2 == 0 ? "hawthorn" : "bramble") + " " + i);
            List<String> tags = new ArrayList<>();
            for (int t = 0; t < i % 4; t++) {
                tags.add(TAGS[(i + t * 2) % TAGS.length]);
            }
            if (i % 7 == 0) {
                tags.add(tags.isEmpty() ? "red" : tags.get(0)); // a repeated value: counted once
            }
            if (i % 5 == 1) {
                fields.put("tags", TAGS[i % TAGS.length]);
            } else if (!tags.isEmpty()) {
                fields.put("tags", tags);
            }
            fields.put("n", i % 3 == 0 ? List.of(Integer.toString(i), Integer.toString(100 - i))
                    : Integer.toString(i));
            fields.put("price", List.of(Double.toString(i / 4.0), Double.toString(i * 1.5)));
            if (i % 6 != 5) {
                fields.put("day", List.of("2020-01-" + String.format("%02d", 1 + i % 28), "2021-06-15"));
            }
            fields.put("flag", i % 2 == 0 ? List.of("true", "false") : "true");
            docs.add(new SourceDocument("d-" + i, fields, i + 1));
        }
        return docs;
    }

    private static final List<String> SEARCHES = List.of(
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}]}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"desc\"}]}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"tags\": \"asc\"}]}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"tags\": \"desc\"}]}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"price\": \"desc\"}, {\"day\": \"asc\"}]}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}],"
                    + " \"filter\": {\"term\": {\"tags\": \"blue\"}}}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}],"
                    + " \"filter\": {\"range\": {\"n\": {\"gte\": 90}}}}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}],"
                    + " \"filter\": {\"range\": {\"n\": {\"gte\": 10, \"lte\": 12}}}}",
            "{\"query\": \"hedge\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}],"
                    + " \"filter\": {\"bool\": {\"must\": [{\"term\": {\"flag\": \"false\"}}, {\"exists\": {\"field\": \"day\"}}]}}}",
            "{\"query\": \"tags:amber\", \"size\": 100, \"track_total_hits\": true, \"sort\": [{\"n\": \"asc\"}]}",
            "{\"query\": \"hedge\", \"size\": 0, \"aggs\": {\"tags\": {\"terms\": {\"field\": \"tags\", \"size\": 10}},"
                    + " \"nums\": {\"terms\": {\"field\": \"n\", \"size\": 100}},"
                    + " \"prices\": {\"stats\": {\"field\": \"price\"}}}}");

    @Test
    void liveWrittenArraysSearchFilterSortAndAggregateAsIndexedOnes(@TempDir Path data) throws Exception {
        List<SourceDocument> docs = documents();
        SourceDocument seed = new SourceDocument("seed", Map.of("title", "seed"), 1);
        try (EmbeddedCluster offline = EmbeddedCluster.builder(data.resolve("offline"))
                .documents("arrays", config(), withSeed(seed, docs))
                .leaves(2).partitions(4).replicas(1).http(0).start();
             EmbeddedCluster live = EmbeddedCluster.builder(data.resolve("live"))
                .documents("arrays", config(), List.of(seed))
                .leaves(2).partitions(4).replicas(1).http(0).start()) {
            StringBuilder bulk = new StringBuilder();
            for (SourceDocument doc : docs) {
                bulk.append(JSON.writeValueAsString(Map.of("index", Map.of("_id", doc.id())))).append('\n');
                bulk.append(JSON.writeValueAsString(doc.fields())).append('\n');
            }
            JsonNode written = JSON.readTree(send(live, "/_bulk?refresh=true", bulk.toString(), 200));
            assertThat(written.path("errors").asBoolean()).as(written.toString()).isFalse();

            for (String search : SEARCHES) {
                JsonNode expected = JSON.readTree(send(offline, "/search", search, 200));
                JsonNode actual = JSON.readTree(send(live, "/search", search, 200));
                assertThat(actual.path("total_hits")).as(search).isEqualTo(expected.path("total_hits"));
                assertThat(ids(actual)).as(search).isEqualTo(ids(expected));
                assertThat(sortValues(actual)).as(search).isEqualTo(sortValues(expected));
                assertThat(actual.path("aggregations")).as(search).isEqualTo(expected.path("aggregations"));
            }
            // The searches do see several values: a filter on a second value matches.
            JsonNode byHigh = JSON.readTree(send(live, "/search", SEARCHES.get(6), 200));
            assertThat(ids(byHigh)).contains("d-0", "d-3", "d-9");
            JsonNode aggs = JSON.readTree(send(live, "/search", SEARCHES.getLast(), 200)).path("aggregations");
            assertThat(aggs.path("tags").path("buckets")).isNotEmpty();
            assertThat(aggs.path("nums").path("buckets")).hasSizeGreaterThan(DOCS);
        }
    }

    @Test
    void arraysReadBackAsArraysAndUpdatesReplaceThem(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("arrays", config(), List.of(new SourceDocument("seed", Map.of("title", "seed"), 1)))
                .leaves(2).partitions(2).replicas(2).http(0).start()) {
            send(cluster, "/documents/a?refresh=true", "{\"title\": \"heron\", \"tags\": [\"grey\", \"wader\"],"
                    + " \"n\": [3, 1, 2], \"price\": 2.5}", 201, "PUT");
            JsonNode read = JSON.readTree(send(cluster, "/documents/a", null, 200, "GET")).path("fields");
            assertThat(read.path("tags")).isEqualTo(JSON.readTree("[\"grey\", \"wader\"]"));
            assertThat(read.path("n")).as("in the order written").isEqualTo(JSON.readTree("[\"3\", \"1\", \"2\"]"));
            assertThat(read.path("price").isTextual()).isTrue();
            assertThat(read.path("price").asText()).isEqualTo("2.5");
            assertThat(read.path("title").asText()).isEqualTo("heron");

            // The embedded API: several values per field, and read back as a list.
            cluster.root().documents().upsertValues("b", Map.of("tags", List.of("x", "y"), "title", List.of("egret")),
                    WriteOptions.NONE).join();
            assertThat(cluster.root().documents().get("b").join().fields())
                    .containsEntry("tags", List.of("x", "y")).containsEntry("title", "egret");

            JsonNode updated = JSON.readTree(send(cluster, "/_bulk?refresh=true", """
                    {"update": {"_id": "a"}}
                    {"doc": {"tags": ["bittern"], "n": [7, 8]}}
                    """, 200));
            assertThat(updated.path("errors").asBoolean()).as(updated.toString()).isFalse();
            JsonNode after = JSON.readTree(send(cluster, "/documents/a", null, 200, "GET")).path("fields");
            assertThat(after.path("n")).isEqualTo(JSON.readTree("[\"7\", \"8\"]"));
            assertThat(after.path("tags").asText()).as("one value reads back as a string").isEqualTo("bittern");
            assertThat(after.path("title").asText()).isEqualTo("heron");
            JsonNode found = JSON.readTree(send(cluster, "/search",
                    "{\"query\": \"heron\", \"filter\": {\"term\": {\"n\": 8}}, \"track_total_hits\": true}", 200));
            assertThat(ids(found)).containsExactly("a");
            assertThat(found.path("hits").get(0).path("fields")).as("a hit's fields as GET /documents reads them")
                    .isEqualTo(after);
        }
    }

    @Test
    void searchHitsCarryEveryValueOfAMultiValuedField(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("arrays", config(), List.of(new SourceDocument("seed", Map.of("title", "seed"), 1)))
                .leaves(2).partitions(2).replicas(1).http(0).start()) {
            send(cluster, "/documents/a?refresh=true", "{\"title\": \"heron\", \"tags\": [\"grey\", \"wader\", \"grey\"],"
                    + " \"n\": [3, 1, 2], \"price\": 2.5, \"flag\": [true]}", 201, "PUT");
            JsonNode read = JSON.readTree(send(cluster, "/documents/a", null, 200, "GET")).path("fields");
            JsonNode hit = JSON.readTree(send(cluster, "/search", "{\"query\": \"heron\"}", 200)).path("hits").get(0);

            assertThat(hit.path("fields").path("tags")).as("every value, in the order written")
                    .isEqualTo(JSON.readTree("[\"grey\", \"wader\", \"grey\"]"));
            assertThat(hit.path("fields").path("n")).isEqualTo(JSON.readTree("[\"3\", \"1\", \"2\"]"));
            assertThat(hit.path("fields").path("title").asText()).as("one value: a string").isEqualTo("heron");
            assertThat(hit.path("fields").path("flag").asText()).as("an array of one: a string").isEqualTo("true");
            assertThat(hit.path("fields")).as("as GET /documents/{id} reads the document").isEqualTo(read);
        }
    }

    @Test
    void aBadValueInAnArrayIsRefusedWithItsFieldAndLine(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("arrays", config(), List.of(new SourceDocument("seed", Map.of("title", "seed"), 1)))
                .leaves(1).partitions(2).replicas(1).http(0).start()) {
            JsonNode answer = JSON.readTree(send(cluster, "/documents?refresh=true", """
                    {"id": "ok", "title": "fine", "n": [1, 2]}
                    {"id": "bad", "title": "broken", "n": [1, "two"]}
                    """, 200));
            JsonNode items = answer.path("items");
            assertThat(items.get(0).path("status").asInt()).as(answer.toString()).isEqualTo(201);
            assertThat(items.get(1).path("status").asInt()).isEqualTo(400);
            assertThat(items.get(1).path("line").asInt()).isEqualTo(2);
            assertThat(items.get(1).path("error").asText()).contains("'n'").contains("two");

            JsonNode es = JSON.readTree(send(cluster, "/_bulk", """
                    {"index": {"_id": "e"}}
                    {"title": "x", "day": ["2020-01-01", "yesterday"]}
                    """, 200));
            JsonNode error = es.path("items").get(0).path("index");
            assertThat(error.path("status").asInt()).as(es.toString()).isEqualTo(400);
            assertThat(error.path("error").path("reason").asText()).contains("'day'").contains("yesterday");
        }
    }

    private static List<SourceDocument> withSeed(SourceDocument seed, List<SourceDocument> docs) {
        List<SourceDocument> all = new ArrayList<>();
        all.add(seed);
        all.addAll(docs);
        return all;
    }

    private static List<String> ids(JsonNode answer) {
        List<String> ids = new ArrayList<>();
        answer.path("hits").forEach(hit -> ids.add(hit.path("id").asText()));
        return ids;
    }

    private static List<String> sortValues(JsonNode answer) {
        List<String> values = new ArrayList<>();
        answer.path("hits").forEach(hit -> values.add(hit.path("sort").toString()));
        return values;
    }

    private String send(EmbeddedCluster to, String path, String body, int status) throws Exception {
        return send(to, path, body, status, "POST");
    }

    private String send(EmbeddedCluster to, String path, String body, int status, String method) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.httpPort() + path))
                .timeout(TIMEOUT).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(status);
        return response.body();
    }
}
