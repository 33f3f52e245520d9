package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad queries through the HTTP API that no leaf must be troubled with twice: one that expands past
 * Lucene's clause limit when a leaf rewrites it is a 400 naming the limit (not an error retried on
 * the other replica), and one that does not parse is refused by the root, which parses as the
 * leaves do, before any leaf sees it.
 */
class ClauseLimitHttpTest {
    /** Terms w0000..w0199: any w00xx is within two edits of every other. */
    private static final int TERMS = 200;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < TERMS; i++) {
            documents.add(new SourceDocument("doc-" + i, Map.of("body", String.format("w%04d w%04d", i, (i * 7) % TERMS)),
                    i + 1));
        }
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("clauses", IndexConfig.defaults(), documents)
                .leaves(2).partitions(2).replicas(2)
                .http(0)
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(REQUEST_TIMEOUT).build();
    }

    @AfterAll
    static void stopCluster() {
        if (http != null) {
            http.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aQueryThatExpandsPastLucenesClauseLimitIsABadQueryNamingTheLimit() throws Exception {
        String fuzzy = IntStream.range(0, 30).mapToObj(i -> String.format("body:w00%02d~2", i * 3))
                .collect(Collectors.joining(" "));
        double sentBefore = subRequestsSent();

        HttpResponse<String> response = get(fuzzy);

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("error").asText()).isEqualTo("bad_query");
        assertThat(body.get("detail").asText()).contains("expands to more clauses than Lucene's limit",
                "expected: <= " + IndexSearcher.getMaxClauseCount() + " clauses after rewriting");
        assertThat(subRequestsSent() - sentBefore).as("no retry on the other replica of a bad query")
                .isLessThanOrEqualTo(2);
    }

    @Test
    void aQueryThatDoesNotParseIsRefusedByTheRootWithoutTouchingALeaf() throws Exception {
        double sentBefore = subRequestsSent();

        HttpResponse<String> response = get("body:(w0001 OR");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("error").asText()).isEqualTo("bad_query");
        assertThat(body.get("detail").asText()).startsWith("Cannot parse 'body:(w0001 OR'");
        assertThat(subRequestsSent()).as("sub-requests sent").isEqualTo(sentBefore);
    }

    private static double subRequestsSent() {
        return cluster.root().metrics().registry().get("hedgerow.subrequests").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    private static HttpResponse<String> get(String query) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + cluster.httpPort() + "/search?k=3&cache=false&q="
                + URLEncoder.encode(query, UTF_8));
        return http.send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(), BodyHandlers.ofString(UTF_8));
    }
}
