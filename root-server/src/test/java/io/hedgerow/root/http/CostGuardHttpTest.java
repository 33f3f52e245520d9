package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.search.QueryLimits;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaves' cost guards seen through the root's HTTP API: each refuses a query before it runs,
 * with a 400 whose detail names the limit (the leaf flag that sets it). The leaves run with small
 * limits so that short queries reach them; every partition holds every word, so a pattern matches
 * the same terms in each.
 */
class CostGuardHttpTest {
    private static final String[] WORDS = {"meadow", "hawthorn", "hazel", "blackbird", "brook", "bramble", "badger",
        "bank", "oak", "thrush"};
    private static final QueryLimits LIMITS = new QueryLimits(100, 8, 3, false);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", "note " + i);
            fields.put("body", String.join(" ", WORDS));
            documents.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("guarded", IndexConfig.defaults(), documents)
                .leaves(2).partitions(4).replicas(1)
                .leafSettings(leaf -> leaf.withLimits(LIMITS))
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
    void refusesAQueryStringLongerThanTheLeafsLimit() throws Exception {
        String query = "body:meadow OR ".repeat(7) + "body:meadow"; // 116 characters
        assertThat(query).hasSizeGreaterThan(LIMITS.maxQueryChars());

        assertRefused(query, "query: 116 characters (expected: <= 100, the leaf's --max-query-chars)");
    }

    @Test
    void refusesMoreClausesThanTheLimit() throws Exception {
        assertOk("body:(meadow hawthorn hazel blackbird brook bramble badger bank)"); // 8 clauses

        assertRefused("body:(meadow hawthorn hazel blackbird brook bramble badger bank oak)",
                "too many clauses: 9 (expected: <= 8, the leaf's --max-clauses");
    }

    @Test
    void refusesAPatternThatMatchesMoreTermsThanTheLimit() throws Exception {
        assertOk("body:ha*"); // hawthorn, hazel
        assertOk("body:hazle~1"); // hazel

        assertRefused("body:b*", "'body:b*' matches more than 3 terms in partition",
                "(expected: <= 3, the leaf's --max-expansions)");
        assertRefused("body:/b[a-z]+/", "matches more than 3 terms", "--max-expansions");
    }

    @Test
    void refusesLeadingWildcardsUnlessTheLeafAllowsThem() throws Exception {
        assertRefused("body:*ow", "'body:*ow' starts with a wildcard or pattern",
                "unless the leaf runs with --allow-leading-wildcard");
    }

    @Test
    void refusesAQueryStringLongerThanTheRootsOwnLimit() throws Exception {
        // 8,400 characters: the root refuses it first (in a POST: a GET line that long is refused as such)
        URI uri = URI.create("http://127.0.0.1:" + cluster.httpPort() + "/search");
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"query\": \"" + "meadow ".repeat(1200) + "\"}", UTF_8))
                .build(), BodyHandlers.ofString(UTF_8));

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("error").asText()).isEqualTo("bad_request");
        assertThat(body.get("detail").asText()).contains("query: 8400 characters (expected: <= 8192)");
    }

    private static void assertRefused(String query, String... detailParts) throws Exception {
        HttpResponse<String> response = get(query);
        assertThat(response.statusCode()).as("status of %s: %s", query, response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("error").asText()).as(response.body()).isEqualTo("bad_query");
        assertThat(body.get("detail").asText()).as(response.body()).contains(detailParts);
    }

    private static void assertOk(String query) throws Exception {
        HttpResponse<String> response = get(query);
        assertThat(response.statusCode()).as("status of %s: %s", query, response.body()).isEqualTo(200);
    }

    private static HttpResponse<String> get(String query) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + cluster.httpPort() + "/search?k=3&q=" + URLEncoder.encode(query, UTF_8));
        return http.send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(), BodyHandlers.ofString(UTF_8));
    }
}
