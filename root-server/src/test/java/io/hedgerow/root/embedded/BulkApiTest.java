package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.write.DocumentResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /_bulk}, Elasticsearch's bulk API: index, create, update and delete actions answered
 * per item in order with status, result and seq; {@code create} of an existing id is a 409;
 * {@code if_seq_no} writes only at that version; a malformed action line fails the request.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BulkApiTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void actionsAreAnsweredPerItemWithStatusAndSeq(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("bulk", IndexConfig.defaults(), TestData.documents(3, 50))
                .leaves(2).partitions(2).replicas(2).http(0).start()) {
            String body = """
                    {"index": {"_id": "a"}}
                    {"title": "heron", "body": "first"}
                    {"create": {"_id": "b"}}
                    {"title": "egret"}
                    {"create": {"_id": "a"}}
                    {"title": "heron again"}
                    {"update": {"_id": "b"}}
                    {"doc": {"body": "wading"}}
                    {"update": {"_id": "missing"}}
                    {"doc": {"body": "x"}}
                    {"delete": {"_id": "nothing-here"}}
                    {"index": {"_id": "c"}}
                    {"title": "bittern"}
                    """;
            JsonNode answer = json.readTree(bulk(cluster, body, 200));
            assertThat(answer.path("errors").asBoolean()).isTrue();
            JsonNode items = answer.path("items");
            assertThat(items).hasSize(7);
            assertThat(items.get(0).path("index").path("status").asInt()).isEqualTo(201);
            assertThat(items.get(0).path("index").path("result").asText()).isEqualTo("created");
            long seqA = items.get(0).path("index").path("_seq_no").asLong();
            assertThat(seqA).isPositive();
            assertThat(items.get(1).path("create").path("status").asInt()).isEqualTo(201);
            assertThat(items.get(2).path("create").path("status").asInt()).as("create of an existing id")
                    .isEqualTo(409);
            assertThat(items.get(2).path("create").path("error").path("type").asText())
                    .isEqualTo("version_conflict_engine_exception");
            assertThat(items.get(3).path("update").path("status").asInt()).isEqualTo(200);
            assertThat(items.get(3).path("update").path("result").asText()).isEqualTo("updated");
            assertThat(items.get(4).path("update").path("status").asInt()).isEqualTo(404);
            assertThat(items.get(5).path("delete").path("status").asInt()).isEqualTo(404);
            assertThat(items.get(5).path("delete").path("result").asText()).isEqualTo("not_found");
            assertThat(items.get(6).path("index").path("status").asInt()).isEqualTo(201);

            DocumentResult updated = cluster.root().documents().get("b").join();
            assertThat(updated.fields()).containsEntry("title", "egret").containsEntry("body", "wading");
            assertThat(cluster.root().documents().get("a").join().fields()).containsEntry("title", "heron");

            JsonNode conditional = json.readTree(bulk(cluster, "{\"index\": {\"_id\": \"a\", \"if_seq_no\": "
                    + (seqA + 1000) + ", \"if_primary_term\": 1}}\n{\"title\": \"stale\"}\n"
                    + "{\"index\": {\"_id\": \"a\", \"if_seq_no\": " + seqA + ", \"if_primary_term\": 1}}\n"
                    + "{\"title\": \"current\"}\n{\"delete\": {\"_id\": \"c\"}}\n", 200)).path("items");
            assertThat(conditional.get(0).path("index").path("status").asInt()).isEqualTo(409);
            assertThat(conditional.get(1).path("index").path("status").asInt()).isEqualTo(200);
            assertThat(conditional.get(2).path("delete").path("result").asText()).isEqualTo("deleted");

            // Several ops on one id apply in the bulk's order, writes queued together as updates read between them.
            JsonNode sameId = json.readTree(bulk(cluster, """
                    {"index": {"_id": "d"}}
                    {"title": "curlew"}
                    {"delete": {"_id": "d"}}
                    {"index": {"_id": "d"}}
                    {"title": "godwit"}
                    {"update": {"_id": "d"}}
                    {"doc": {"body": "probing"}}
                    {"index": {"_id": "d"}}
                    {"title": "whimbrel"}
                    {"update": {"_id": "d"}}
                    {"doc": {"body": "wading"}}
                    """, 200)).path("items");
            assertThat(sameId.get(0).path("index").path("result").asText()).isEqualTo("created");
            assertThat(sameId.get(1).path("delete").path("result").asText()).isEqualTo("deleted");
            assertThat(sameId.get(2).path("index").path("result").asText()).isEqualTo("created");
            assertThat(sameId.get(3).path("update").path("result").asText()).isEqualTo("updated");
            assertThat(sameId.get(4).path("index").path("result").asText()).isEqualTo("updated");
            assertThat(sameId.get(5).path("update").path("result").asText()).isEqualTo("updated");
            assertThat(cluster.root().documents().get("d").join().fields())
                    .containsEntry("title", "whimbrel").containsEntry("body", "wading");

            String malformed = bulk(cluster, "{\"upsert\": {\"_id\": \"x\"}}\n{\"title\": \"x\"}\n", 400);
            assertThat(malformed).contains("malformed action line 1");
        }
    }

    private String bulk(EmbeddedCluster cluster, String body, int status) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + "/_bulk"))
                .timeout(PATIENCE).header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return response.body();
    }
}
