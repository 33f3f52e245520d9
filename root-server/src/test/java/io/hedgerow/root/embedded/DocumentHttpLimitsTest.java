package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.TestData;
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
 * {@code /documents} over HTTP: bulk bodies are JSON lines by content type (415 otherwise), bulk
 * bodies and single documents well over 64 KB are taken (up to their documented limits; 413 with a
 * JSON body beyond), and {@code refresh=true} makes a write searchable before it is answered even
 * when the leaves' own refresh is an hour away.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DocumentHttpLimitsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final ObjectMapper json = new ObjectMapper();

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("limits", IndexConfig.defaults(), TestData.documents(3, 50))
                .leaves(2).partitions(2).replicas(2).http(0)
                // Searches see a write only through refresh=true: the leaves' own refresh is an hour away.
                .leafSettings(config -> config.withLive(new LiveSettings(null, Duration.ofHours(1),
                        Duration.ofSeconds(30), false)))
                .start();
    }

    @Test
    void aBulkBodyThatIsNotJsonLinesIsRefusedWith415(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            HttpResponse<String> form = send(cluster, "POST", "/documents", "application/x-www-form-urlencoded",
                    "{\"id\": \"form-1\", \"title\": \"fjord\"}\n");
            assertThat(form.statusCode()).as(form.body()).isEqualTo(415);
            assertThat(json.readTree(form.body()).path("error").asText()).isEqualTo("unsupported_media_type");
            HttpResponse<String> ndjson = send(cluster, "POST", "/documents", "application/x-ndjson",
                    "{\"id\": \"nd-1\", \"title\": \"fjord\"}\n");
            assertThat(ndjson.statusCode()).as(ndjson.body()).isEqualTo(200);
            assertThat(json.readTree(ndjson.body()).path("errors").asBoolean()).isFalse();
        }
    }

    @Test
    void bodiesOver64KbAreTakenUpToTheirLimitsAndBeyondRefusedWith413(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            StringBuilder bulk = new StringBuilder();
            String text = "lichen ".repeat(150); // about 1 KB a document, 300 documents
            for (int i = 0; i < 300; i++) {
                bulk.append("{\"id\": \"bulk-").append(i).append("\", \"title\": \"moss\", \"body\": \"").append(text)
                        .append("\"}\n");
            }
            assertThat(bulk.length()).isGreaterThan(256 * 1024);
            HttpResponse<String> many = send(cluster, "POST", "/documents", "application/x-ndjson", bulk.toString());
            assertThat(many.statusCode()).as(many.body().substring(0, Math.min(500, many.body().length())))
                    .isEqualTo(200);
            JsonNode answer = json.readTree(many.body());
            assertThat(answer.path("errors").asBoolean()).isFalse();
            assertThat(answer.path("items")).hasSize(300);

            String large = "{\"title\": \"moss\", \"body\": \"" + "lichen ".repeat(30_000) + "\"}"; // about 210 KB
            HttpResponse<String> one = send(cluster, "PUT", "/documents/large", "application/json", large);
            assertThat(one.statusCode()).as(one.body()).isEqualTo(201);

            String tooLarge = "{\"title\": \"moss\", \"body\": \"" + "x".repeat(9 * 1024 * 1024) + "\"}";
            HttpResponse<String> refused = send(cluster, "PUT", "/documents/too-large", "application/json", tooLarge);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
            assertThat(json.readTree(refused.body()).path("error").asText()).isEqualTo("payload_too_large");
        }
    }

    @Test
    void refreshTrueMakesTheWriteSearchableBeforeTheAnswer(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            HttpResponse<String> written = send(cluster, "PUT", "/documents/fresh?refresh=true", "application/json",
                    "{\"title\": \"quokka\"}");
            assertThat(written.statusCode()).as(written.body()).isEqualTo(201);
            assertThat(cluster.client().search(SearchRequest.builder("quokka").k(10).build()).join().hits())
                    .extracting(Hit::id).containsExactly("fresh");

            HttpResponse<String> bad = send(cluster, "PUT", "/documents/odd?refresh=soon", "application/json",
                    "{\"title\": \"quokka\"}");
            assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
            assertThat(bad.body()).contains("refresh=soon");
        }
    }

    private HttpResponse<String> send(EmbeddedCluster cluster, String method, String path, String type, String body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(PATIENCE).header("Content-Type", type)
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
