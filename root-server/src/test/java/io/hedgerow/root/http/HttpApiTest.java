package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.fault.LeafFaultException;
import io.hedgerow.root.tail.Blocklist;
import io.hedgerow.root.tail.QueryFingerprint;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The HTTP API over a real socket: an embedded cluster (3 leaves, 6 partitions, 2 replicas) over a
 * few hundred generated documents, asked with {@link HttpClient} as any client would. Every error
 * must be a JSON body naming the problem, and the server must keep serving after it.
 */
class HttpApiTest {
    /** The documents are generated from this seed; a failure reproduces with the same seed. */
    private static final long SEED = 0x4ED6E50L;
    private static final int DOCS = 300;
    private static final int LEAVES = 3;
    private static final int PARTITIONS = 6;
    private static final String[] WORDS = {
        "meadow", "hawthorn", "blackbird", "brook", "hazel", "bramble", "oak", "thrush", "willow", "badger",
        "nettle", "sparrow", "ditch", "elder", "wren", "hedge", "field", "gate", "stile", "lane",
        "rook", "ash", "holly", "moss", "fern", "vole", "finch", "pond", "sloe", "bank"};
    /** Enough to wait for any answer of a healthy loopback cluster; only a hang reaches it. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static List<SourceDocument> documents;
    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        System.out.println("HttpApiTest documents from seed " + SEED);
        documents = documents(new Random(SEED), DOCS);
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("hedgerows", IndexConfig.defaults(), documents)
                .leaves(LEAVES).partitions(PARTITIONS).replicas(2)
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

    // ------------------------------------------------------------------ happy paths

    @Test
    void answersAGetSearchWithTopHitsCoverageAndHighlightedSnippets() throws Exception {
        HttpResponse<String> response = get("/search?q=meadow&k=3");

        assertJson(response, 200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("took_ms").isNumber()).isTrue();
        assertThat(body.get("took_ms").asDouble()).isNotNegative();
        assertThat(body.get("total_hits").get("value").asLong()).isEqualTo(docsContaining("meadow"));
        assertThat(body.get("total_hits").get("relation").asText()).isEqualTo("eq");
        assertThat(body.get("tainted").isBoolean()).isTrue();
        assertThat(body.get("tainted").asBoolean()).isFalse();
        JsonNode coverage = body.get("coverage");
        assertThat(coverage.get("partitions_total").asInt()).isEqualTo(PARTITIONS);
        assertThat(coverage.get("partitions_answered").asInt()).isEqualTo(PARTITIONS);
        assertThat(coverage.get("docs_fraction").asDouble()).isEqualTo(1.0);
        assertThat(body.has("errors")).as("errors of a complete result").isFalse();

        JsonNode hits = body.get("hits");
        assertThat(hits).hasSize(3);
        float previous = Float.MAX_VALUE;
        for (JsonNode hit : hits) {
            String id = hit.get("id").asText();
            SourceDocument source = document(id);
            assertThat(hit.get("score").floatValue()).isPositive().isLessThanOrEqualTo(previous);
            previous = hit.get("score").floatValue();
            assertThat(hit.get("partition").asInt()).isBetween(0, PARTITIONS - 1);
            assertThat(hit.get("fields").get("title").asText()).isEqualTo(source.fields().get("title"));
            assertThat(hit.get("fields").get("body").asText()).isEqualTo(source.fields().get("body"));
            assertThat(hit.get("snippet").asText()).contains("<b>meadow</b>");
        }
    }

    @Test
    void answersAPostSearchWithAJsonBody() throws Exception {
        HttpResponse<String> response = postJson("/search", "{\"query\": \"hawthorn\", \"k\": 4, \"timeout_ms\": 10000}");

        assertJson(response, 200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("total_hits").get("value").asLong()).isEqualTo(docsContaining("hawthorn"));
        assertThat(body.get("tainted").asBoolean()).isFalse();
        assertThat(body.get("hits")).hasSize(4);
        for (JsonNode hit : body.get("hits")) {
            assertThat(hit.get("snippet").asText()).contains("<b>hawthorn</b>");
            assertThat(hit.get("fields").get("title").asText()).isEqualTo(document(hit.get("id").asText()).fields().get("title"));
        }
    }

    @Test
    void aBlocklistedQueryIsRefusedUntilAnOperatorClearsIt() throws Exception {
        QueryFingerprint deadly = cluster.root().tail().fingerprint("meadow AND thrush");
        cluster.root().tail().blocklist().block(deadly, Blocklist.Reason.CANARY_CONNECTION_LOST,
                "was out on leaf 127.0.0.1:1 when the connection dropped (reset) after 2 ms");
        try {
            // Spelt differently, but the same query: refused, with the reason and how to clear it.
            assertError(get("/search?q=thrush+%26%26++meadow"), 503, "blocklisted", "blocklisted as a query of death",
                    "canary_connection_lost", "DELETE /admin/blocklist/" + deadly.id());
            assertJson(get("/search?q=meadow+OR+thrush"), 200);

            HttpResponse<String> listed = get("/admin/blocklist");
            assertJson(listed, 200);
            JsonNode entry = JSON.readTree(listed.body()).get("entries").get(0);
            assertThat(entry.get("id").asText()).isEqualTo(deadly.id());
            assertThat(entry.get("query").asText()).isEqualTo(deadly.text()).contains("+(", "meadow", "thrush");
            assertThat(entry.get("reason").asText()).isEqualTo("canary_connection_lost");
            assertThat(entry.get("expires_in_ms").asLong()).isPositive();

            assertError(send(request("/admin/blocklist/0123456789abcdef").DELETE().build()), 404, "not_found",
                    "no blocklisted query has the id '0123456789abcdef'");
            HttpResponse<String> removed = send(request("/admin/blocklist/" + deadly.id()).DELETE().build());
            assertJson(removed, 200);
            assertThat(JSON.readTree(removed.body()).get("result").asText()).isEqualTo("removed");
            assertJson(get("/search?q=meadow+AND+thrush"), 200);
            assertThat(JSON.readTree(get("/admin/blocklist").body()).get("entries")).isEmpty();
            assertError(postJson("/admin/blocklist", "{}"), 405, "method_not_allowed", "GET, DELETE");
        } finally {
            cluster.root().tail().blocklist().clear();
        }
    }

    @Test
    void saysWhetherAResultCameFromTheCache() throws Exception {
        String query = "/search?q=sparrow+OR+linnet&k=7&snippets=false";
        assertThat(JSON.readTree(get(query).body()).get("cache").asText()).isEqualTo("miss");
        assertThat(JSON.readTree(get(query).body()).get("cache").asText()).isEqualTo("hit");
        assertThat(JSON.readTree(get(query + "&cache=false").body()).get("cache").asText()).isEqualTo("off");

        HttpResponse<String> stats = get("/admin/cache");
        assertJson(stats, 200);
        assertThat(JSON.readTree(stats.body()).get("hits").asLong()).isPositive();
        HttpResponse<String> cleared = send(request("/admin/cache").DELETE().build());
        assertThat(JSON.readTree(cleared.body()).get("result").asText()).isEqualTo("cleared");
        assertThat(JSON.readTree(get(query).body()).get("cache").asText()).isEqualTo("miss");
    }

    @Test
    void explainsEverySubRequestOfATiedQuery() throws Exception {
        HttpResponse<String> response = get("/search?q=meadow&k=3&hedge=tied&explain=true");

        assertJson(response, 200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("tainted").asBoolean()).isFalse();
        JsonNode trace = body.get("trace");
        assertThat(trace).isNotNull();
        Set<Integer> answered = new HashSet<>();
        int fetches = 0;
        for (JsonNode sub : trace) {
            assertThat(sub.get("leaf").asText()).matches("127\\.0\\.0\\.1:\\d+");
            assertThat(sub.get("kind").asText()).isIn("canary", "primary", "twin", "retry", "fetch");
            assertThat(sub.get("sent_ms").asDouble()).isNotNegative();
            assertThat(sub.get("cancelled").isBoolean()).isTrue();
            if (sub.get("kind").asText().equals("fetch")) {
                fetches++;
                assertThat(sub.has("partition")).isFalse();
            } else if (sub.get("used").asBoolean()) {
                assertThat(sub.get("status").asText()).isEqualTo("ok");
                assertThat(sub.get("answered_ms").asDouble()).isGreaterThanOrEqualTo(sub.get("sent_ms").asDouble());
                assertThat(answered.add(sub.get("partition").asInt())).as("one used answer per partition").isTrue();
            }
        }
        assertThat(answered).hasSize(PARTITIONS);
        assertThat(fetches).isPositive();
        assertThat(JSON.readTree(get("/search?q=meadow&k=3").body()).has("trace")).as("trace only when asked").isFalse();
    }

    @Test
    void givesTheSameHitsForTheSameQueryByGetAndByPost() throws Exception {
        HttpResponse<String> byGet = get("/search?q=" + encode("willow OR \"oak brook\"") + "&k=20");
        HttpResponse<String> byPost = postJson("/search", "{\"query\": \"willow OR \\\"oak brook\\\"\", \"k\": 20}");

        assertJson(byGet, 200);
        assertJson(byPost, 200);
        JsonNode getHits = JSON.readTree(byGet.body()).get("hits");
        JsonNode postHits = JSON.readTree(byPost.body()).get("hits");
        assertThat(getHits).hasSize(20);
        assertThat(idsAndScores(postHits)).isEqualTo(idsAndScores(getHits));
        assertThat(postHits).isEqualTo(getHits);
        assertThat(JSON.readTree(byPost.body()).get("total_hits")).isEqualTo(JSON.readTree(byGet.body()).get("total_hits"));
    }

    @Test
    void dropsSnippetsAndStoredFieldsWhenAskedTo() throws Exception {
        JsonNode full = JSON.readTree(get("/search?q=thrush&k=5").body()).get("hits");
        HttpResponse<String> noSnippets = get("/search?q=thrush&k=5&snippets=false");
        HttpResponse<String> noFields = postJson("/search", "{\"query\": \"thrush\", \"k\": 5, \"stored_fields\": false}");
        HttpResponse<String> bare = get("/search?q=thrush&k=5&snippets=false&stored_fields=false");

        for (HttpResponse<String> response : List.of(noSnippets, noFields, bare)) {
            assertJson(response, 200);
            assertThat(idsAndScores(JSON.readTree(response.body()).get("hits"))).isEqualTo(idsAndScores(full));
        }
        for (JsonNode hit : JSON.readTree(noSnippets.body()).get("hits")) {
            assertThat(hit.has("snippet")).isFalse();
            assertThat(hit.get("fields").has("title")).isTrue();
        }
        for (JsonNode hit : JSON.readTree(noFields.body()).get("hits")) {
            assertThat(hit.has("fields")).isFalse();
            assertThat(hit.get("snippet").asText()).contains("<b>thrush</b>");
        }
        for (JsonNode hit : JSON.readTree(bare.body()).get("hits")) {
            assertThat(fieldNames(hit)).containsExactly("id", "score", "partition");
        }
    }

    // ------------------------------------------------------------------ bad input

    @Test
    void refusesMalformedQuerySyntaxAsBadQuery() throws Exception {
        assertError(get("/search?q=" + encode("title:(foo")), 400, "bad_query", "title:(foo");
        assertStillServes();
        assertError(postJson("/search", "{\"query\": \"body:\\\"unclosed\"}"), 400, "bad_query", "unclosed");
        assertStillServes();
    }

    @Test
    void refusesAnEmptyQueryNamingIt() throws Exception {
        assertError(get("/search?q="), 400, "bad_request", "query: empty");
        assertStillServes();
        assertError(postJson("/search", "{\"query\": \"\"}"), 400, "bad_request", "query: empty");
        assertStillServes();
        assertError(get("/search?k=3"), 400, "bad_request", "missing parameter 'q'");
        assertStillServes();
        assertError(postJson("/search", "{\"k\": 3}"), 400, "bad_request", "missing field 'query'");
        assertStillServes();
    }

    @ParameterizedTest
    @CsvSource({"1001", "-5"})
    void refusesKOutOfRangeNamingTheLimits(int k) throws Exception {
        String expected = "k: " + k + " (expected: 0..1000, 0 for counts only)";
        assertError(get("/search?q=meadow&k=" + k), 400, "bad_request", expected);
        assertStillServes();
        assertError(postJson("/search", "{\"query\": \"meadow\", \"k\": " + k + "}"), 400, "bad_request", expected);
        assertStillServes();
    }

    @Test
    void refusesUnknownJsonFieldNamingIt() throws Exception {
        assertError(postJson("/search", "{\"query\": \"meadow\", \"sise\": 3}"), 400, "bad_request",
                "unknown field 'sise'", "query, k, size, from, timeout_ms");
        assertStillServes();
    }

    @Test
    void refusesUnknownParameterNamingIt() throws Exception {
        assertError(get("/search?q=meadow&sise=3"), 400, "bad_request", "unknown parameter 'sise'");
        assertStillServes();
    }

    @Test
    void refusesAWrongJsonTypeNamingTheFieldAndTheExpectedType() throws Exception {
        assertError(postJson("/search", "{\"query\": \"meadow\", \"k\": \"ten\"}"), 400, "bad_request",
                "field 'k' must be an integer");
        assertStillServes();
        assertError(postJson("/search", "{\"query\": \"meadow\", \"snippets\": \"no\"}"), 400, "bad_request",
                "field 'snippets' must be true or false");
        assertStillServes();
        assertError(get("/search?q=meadow&k=ten"), 400, "bad_request", "parameter 'k': 'ten' (expected: an integer)");
        assertStillServes();
    }

    @Test
    void refusesMalformedJsonSayingWhere() throws Exception {
        HttpResponse<String> unclosed = postJson("/search", "{\"query\": \"meadow\"");
        assertError(unclosed, 400, "bad_request", "malformed JSON", "expected close marker for Object", "line 1, column 19");
        assertThat(JSON.readTree(unclosed.body()).get("detail").asText()).doesNotContain("Source:", "StreamReadFeature");
        assertStillServes();
        assertError(postJson("/search", "{\"query\": \"meadow\"} {}"), 400, "bad_request", "malformed JSON");
        assertStillServes();
        assertError(postJson("/search", "[\"meadow\"]"), 400, "bad_request", "must be a JSON object");
        assertStillServes();
        assertError(postJson("/search", ""), 400, "bad_request", "empty body");
        assertStillServes();
    }

    @Test
    void refusesABodyOver64KiBAsPayloadTooLarge() throws Exception {
        String big = "{\"query\": \"" + "meadow ".repeat(HttpApiServer.MAX_BODY_BYTES / 7 + 1) + "\"}";
        assertThat(big.length()).isGreaterThan(HttpApiServer.MAX_BODY_BYTES);

        assertError(postJson("/search", big), 413, "payload_too_large", String.valueOf(HttpApiServer.MAX_BODY_BYTES));
        assertStillServes();
    }

    @Test
    void refusesAnAnnouncedOversizedBodyBeforeTheClientSendsIt() throws Exception {
        String big = "{\"query\": \"" + "x".repeat(HttpApiServer.MAX_BODY_BYTES) + "\"}";
        HttpResponse<String> response = send(request("/search")
                .header("Content-Type", "application/json")
                .expectContinue(true)
                .POST(BodyPublishers.ofString(big))
                .build());

        assertError(response, 413, "payload_too_large", "larger than " + HttpApiServer.MAX_BODY_BYTES + " bytes");
        assertStillServes();
    }

    /**
     * curl sends a query's non-ASCII letters as raw UTF-8 bytes in the request line, which Netty
     * reads as ISO-8859-1; the root reads them as UTF-8, as it reads percent-encoded ones. Before,
     * {@code q=élan} searched for {@code Ã©lan} and quietly found nothing. The bad query's error
     * names the query as the server read it.
     */
    @Test
    void readsRawUtf8InTheRequestLineAsItReadsPercentEncodedUtf8() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", cluster.httpPort())) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            socket.getOutputStream().write("GET /search?q=title:(%C3%A9lan+för HTTP/1.1\r\nHost: test\r\n\r\n"
                    .getBytes(UTF_8));
            socket.getOutputStream().flush();
            RawResponse raw = RawResponse.read(socket.getInputStream());
            assertThat(raw.status()).isEqualTo(400);
            JsonNode body = JSON.readTree(raw.body());
            assertThat(body.get("error").asText()).isEqualTo("bad_query");
            assertThat(body.get("detail").asText()).contains("title:(élan för");
        }
        assertError(get("/search?q=" + encode("title:(élan för")), 400, "bad_query", "title:(élan för");
    }

    @Test
    void keepsTheConnectionAfterRefusingAnOversizedBody() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", cluster.httpPort())) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            int length = HttpApiServer.MAX_BODY_BYTES * 3;
            out.write(("POST /search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + length + "\r\n\r\n").getBytes(UTF_8));
            out.write(" ".repeat(length).getBytes(UTF_8));
            out.flush();
            RawResponse refused = RawResponse.read(in);
            assertThat(refused.status()).isEqualTo(413);
            assertThat(JSON.readTree(refused.body()).get("error").asText()).isEqualTo("payload_too_large");
            assertThat(refused.headers().get("connection")).isEqualToIgnoringCase("keep-alive");

            // The same announced size, but waiting for a 100 Continue: no body ever follows.
            out.write(("POST /search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                    + "Expect: 100-continue\r\nContent-Length: " + length + "\r\n\r\n").getBytes(UTF_8));
            out.flush();
            assertThat(RawResponse.read(in).status()).isEqualTo(413);

            // A chunked body has no announced size: it goes over the limit part way through.
            out.write("POST /search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .getBytes(UTF_8));
            String chunk = " ".repeat(16 * 1024);
            for (int i = 0; i < 6; i++) {
                out.write((Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n").getBytes(UTF_8));
            }
            out.write("0\r\n\r\n".getBytes(UTF_8));
            out.flush();
            RawResponse chunked = RawResponse.read(in);
            assertThat(chunked.status()).isEqualTo(413);
            assertThat(JSON.readTree(chunked.body()).get("error").asText()).isEqualTo("payload_too_large");

            out.write("GET /search?q=meadow&k=1 HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(UTF_8));
            out.flush();
            RawResponse next = RawResponse.read(in);
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(JSON.readTree(next.body()).get("hits")).hasSize(1);
        }
    }

    @Test
    void acceptsABodyOfExactly64KiB() throws Exception {
        String head = "{\"query\": \"meadow\", \"k\": 1}";
        String body = head + " ".repeat(HttpApiServer.MAX_BODY_BYTES - head.length());
        assertThat(body.getBytes(UTF_8)).hasSize(HttpApiServer.MAX_BODY_BYTES);

        assertJson(postJson("/search", body), 200);
    }

    @Test
    void answersNotFoundForAnUnknownPath() throws Exception {
        assertError(get("/nothing-here"), 404, "not_found", "/nothing-here", "/search");
        assertStillServes();
        // "/" is the console's page (ConsoleRoutesTest); only paths under "/console/" are its files.
        assertError(get("/console"), 404, "not_found", "no such path: /console");
        assertStillServes();
    }

    @Test
    void hasNoAdminSurfaceAndItsLeavesRefuseFaultsWithoutFaultInjection() throws Exception {
        HttpResponse<String> delay = postJson("/admin/leaves/0/delay", "{\"delay_ms\": 50}");
        assertError(delay, 404, "not_found", "no such path: /admin/leaves/0/delay");

        Throwable refused = cluster.root().leafFaults()
                .injectDelay(0, InjectedDelay.of(Duration.ofMillis(50), 1.0, Duration.ofSeconds(10)))
                .handle((applied, failure) -> failure).join();
        assertThat(refused).isInstanceOfSatisfying(LeafFaultException.class, e -> {
            assertThat(e.kind()).isEqualTo(LeafFaultException.Kind.REFUSED);
            assertThat(e.getMessage()).startsWith("leaf 0 (127.0.0.1:")
                    .endsWith("refused: fault injection is disabled on this leaf; start it with --fault-injection");
        });
        assertThat(cluster.leaves().get(0).injectedDelay()).isEmpty();
    }

    @Test
    void answersMethodNotAllowedWithAnAllowHeader() throws Exception {
        HttpResponse<String> delete = send(request("/search").DELETE().build());
        assertError(delete, 405, "method_not_allowed", "DELETE /search");
        assertThat(delete.headers().firstValue("allow")).hasValue("GET, POST");
        assertStillServes();

        HttpResponse<String> postHealth = send(request("/health").POST(BodyPublishers.noBody()).build());
        assertError(postHealth, 405, "method_not_allowed", "POST /health");
        assertThat(postHealth.headers().firstValue("allow")).hasValue("GET");
        assertStillServes();

        HttpResponse<String> putMetrics = send(request("/metrics").PUT(BodyPublishers.ofString("x")).build());
        assertError(putMetrics, 405, "method_not_allowed", "PUT /metrics");
        assertThat(putMetrics.headers().firstValue("allow")).hasValue("GET");
        assertStillServes();
    }

    @Test
    void refusesAnUnsupportedContentTypeOnPost() throws Exception {
        HttpResponse<String> response = send(request("/search")
                .header("Content-Type", "text/plain")
                .POST(BodyPublishers.ofString("{\"query\": \"meadow\"}"))
                .build());
        assertError(response, 415, "unsupported_media_type", "text/plain", "application/json");
        assertStillServes();
    }

    @Test
    void refusesUrlParametersOnPost() throws Exception {
        assertError(postJson("/search?k=3", "{\"query\": \"meadow\"}"), 400, "bad_request", "JSON body, not in the URL");
        assertStillServes();
    }

    // ------------------------------------------------------------------ health, cluster, metrics

    @Test
    void reportsHealthOkWhenEveryLeafIsUp() throws Exception {
        HttpResponse<String> response = get("/health");
        assertJson(response, 200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("ok");
        assertThat(body.get("leaves_up").asInt()).isEqualTo(LEAVES);
        assertThat(body.get("leaves").asInt()).isEqualTo(LEAVES);
    }

    @Test
    void describesTheClusterLeavesPartitionsAndReplicas() throws Exception {
        HttpResponse<String> response = get("/cluster");
        assertJson(response, 200);
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("index").asText()).isEqualTo("hedgerows");
        assertThat(body.get("partitions").asInt()).isEqualTo(PARTITIONS);
        assertThat(body.get("replicas").asInt()).isEqualTo(2);
        assertThat(body.get("docs").asLong()).isEqualTo(DOCS);

        List<String> addresses = cluster.leaves().stream().map(LeafServer::address).toList();
        JsonNode leaves = body.get("leaves");
        assertThat(leaves).hasSize(LEAVES);
        Map<Integer, List<Integer>> holders = new TreeMap<>();
        for (int i = 0; i < LEAVES; i++) {
            JsonNode leaf = leaves.get(i);
            assertThat(leaf.get("leaf").asInt()).isEqualTo(i);
            assertThat(leaf.get("address").asText()).isEqualTo(addresses.get(i));
            assertThat(leaf.get("state").asText()).isEqualTo("up");
            assertThat(leaf.get("ready_connections").asInt()).isPositive();
            for (JsonNode partition : leaf.get("partitions")) {
                holders.computeIfAbsent(partition.asInt(), p -> new ArrayList<>()).add(i);
            }
            assertThat(cluster.leaves().get(i).openPartitions())
                    .containsExactlyInAnyOrderElementsOf(ints(leaf.get("partitions")));
        }

        JsonNode replicas = body.get("partition_replicas");
        assertThat(replicas).hasSize(PARTITIONS);
        long docs = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            JsonNode partition = replicas.get(p);
            assertThat(partition.get("partition").asInt()).isEqualTo(p);
            assertThat(partition.get("leaves")).hasSize(2);
            assertThat(ints(partition.get("leaves"))).containsExactlyInAnyOrderElementsOf(holders.get(p));
            assertThat(partition.get("docs").asLong()).isEqualTo(cluster.manifest().partitionDocCounts().get(p));
            docs += partition.get("docs").asLong();
        }
        assertThat(docs).isEqualTo(DOCS);
    }

    @Test
    void exposesPrometheusMetricsWithPerLeafLatency() throws Exception {
        assertJson(get("/search?q=bramble"), 200);

        HttpResponse<String> response = get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
        String text = response.body();
        assertThat(text).contains("hedgerow_search_latency_seconds_count");
        assertThat(counter(text, "hedgerow_search_latency_seconds_count", null)).isPositive();
        for (LeafServer leaf : cluster.leaves()) {
            assertThat(text).contains("hedgerow_subrequest_latency_seconds_count{leaf=\"" + leaf.address() + "\"");
        }
    }

    @Test
    void countsEachRefusedRequestInTheErrorMetrics() throws Exception {
        double badRequestsBefore = counter(metrics(), "hedgerow_request_errors_total", "bad_request");
        double badQueriesBefore = counter(metrics(), "hedgerow_request_errors_total", "bad_query");
        double notFoundBefore = counter(metrics(), "hedgerow_request_errors_total", "not_found");

        assertError(get("/search?q=meadow&k=-1"), 400, "bad_request", "k: -1");
        assertError(postJson("/search", "{\"query\": \"meadow\", \"sise\": 3}"), 400, "bad_request", "sise");
        assertError(postJson("/search", "{\"query\""), 400, "bad_request", "malformed JSON");
        assertError(send(request("/search").DELETE().build()), 405, "method_not_allowed", "DELETE");
        assertError(postJson("/search", "{\"query\": \"" + "x".repeat(HttpApiServer.MAX_BODY_BYTES) + "\"}"), 413,
                "payload_too_large", "larger than");
        assertError(get("/search?q=" + encode("title:(foo")), 400, "bad_query", "Cannot parse");
        assertError(get("/nowhere"), 404, "not_found", "/nowhere");

        String after = metrics();
        assertThat(counter(after, "hedgerow_request_errors_total", "bad_request") - badRequestsBefore).isEqualTo(5.0);
        assertThat(counter(after, "hedgerow_request_errors_total", "bad_query") - badQueriesBefore).isEqualTo(1.0);
        assertThat(counter(after, "hedgerow_request_errors_total", "not_found") - notFoundBefore).isEqualTo(1.0);
    }

    // ------------------------------------------------------------------ connections

    @Test
    void servesManyRequestsOverOneClient() throws Exception {
        Set<String> firstIds = null;
        for (int i = 0; i < 60; i++) {
            HttpResponse<String> response = switch (i % 3) {
                case 0 -> get("/search?q=hazel&k=5");
                case 1 -> postJson("/search", "{\"query\": \"hazel\", \"k\": 5}");
                default -> get("/health");
            };
            assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
            if (i % 3 != 2) {
                Set<String> ids = new HashSet<>(idsAndScores(JSON.readTree(response.body()).get("hits")).keySet());
                if (firstIds == null) {
                    firstIds = ids;
                }
                assertThat(ids).as("request %d", i).isEqualTo(firstIds);
            }
        }
    }

    @Test
    void answersAnHttp2UpgradeOfferInHttp11() throws Exception {
        // Java's HttpClient offers "Upgrade: h2c" on plain http:// by default.
        try (HttpClient defaults = HttpClient.newHttpClient()) {
            HttpResponse<String> response = defaults.send(request("/search?q=meadow&k=2").GET().build(),
                    BodyHandlers.ofString(UTF_8));

            assertJson(response, 200);
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(JSON.readTree(response.body()).get("hits")).hasSize(2);
        }
    }

    @Test
    void keepsOneConnectionAliveAcrossRequestsAndRefusals() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", cluster.httpPort())) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            String[] requests = {
                "GET /search?q=meadow&k=2 HTTP/1.1\r\nHost: test\r\n\r\n",
                "GET /search?q=meadow&k=-1 HTTP/1.1\r\nHost: test\r\n\r\n",
                "GET /missing HTTP/1.1\r\nHost: test\r\n\r\n",
                "DELETE /search HTTP/1.1\r\nHost: test\r\n\r\n",
                "POST /search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"q\":1}",
                "POST /search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n{\"query\": \"meadow\"}",
                "GET /health HTTP/1.1\r\nHost: test\r\n\r\n",
            };
            int[] statuses = {200, 400, 404, 405, 400, 200, 200};
            String[] firstFields = {"took_ms", "error", "error", "error", "error", "took_ms", "status"};
            for (int i = 0; i < requests.length; i++) {
                out.write(requests[i].getBytes(UTF_8));
                out.flush();
                RawResponse response = RawResponse.read(in);
                assertThat(response.status()).as("request %d: %s", i, requests[i]).isEqualTo(statuses[i]);
                assertThat(response.headers().get("connection")).as("request %d", i).isEqualToIgnoringCase("keep-alive");
                assertThat(response.headers().get("content-type")).startsWith("application/json");
                JsonNode body = JSON.readTree(response.body());
                assertThat(fieldNames(body)).as("request %d: %s", i, response.body()).startsWith(firstFields[i]);
            }
        }
    }

    @Test
    void answersPipelinedRequestsInTheOrderTheyCame() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", cluster.httpPort())) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            // All written at once: the searches take a round trip to the leaves, the rest does not.
            out.write(("GET /search?q=meadow&k=2 HTTP/1.1\r\nHost: test\r\n\r\n"
                    + "GET /health HTTP/1.1\r\nHost: test\r\n\r\n"
                    + "GET /search?q=bramble&k=3 HTTP/1.1\r\nHost: test\r\n\r\n"
                    + "GET /search?q=meadow&k=-1 HTTP/1.1\r\nHost: test\r\n\r\n"
                    + "GET /search?q=hazel&k=1 HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").getBytes(UTF_8));
            out.flush();

            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                RawResponse response = RawResponse.read(in);
                JsonNode body = JSON.readTree(response.body());
                answers.add(response.status() + " " + (body.has("hits") ? "hits:" + body.get("hits").size()
                        : body.has("status") ? "status" : body.get("error").asText()));
            }
            assertThat(answers).containsExactly("200 hits:2", "200 status", "200 hits:3", "400 bad_request", "200 hits:1");
            assertThat(in.read()).as("end of stream after Connection: close").isEqualTo(-1);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A plain request to the server; a hang fails the test after {@link #REQUEST_TIMEOUT}. */
    private static HttpRequest.Builder request(String pathAndQuery) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + pathAndQuery))
                .timeout(REQUEST_TIMEOUT);
        return pathAndQuery.startsWith("/admin") ? request.header("Authorization", "Bearer " + cluster.adminToken()) : request;
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, BodyHandlers.ofString(UTF_8));
    }

    private static HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return send(request(pathAndQuery).GET().build());
    }

    private static HttpResponse<String> postJson(String pathAndQuery, String body) throws IOException, InterruptedException {
        return send(request(pathAndQuery)
                .header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(body, UTF_8))
                .build());
    }

    private static String metrics() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, UTF_8);
    }

    private static void assertJson(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as("status of %s: %s", response.uri(), response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).as("content-type of %s", response.uri())
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    }

    /** The response is {@code {"error": code, "detail": ...}} and the detail names each part. */
    private static void assertError(HttpResponse<String> response, int status, String code, String... detailParts)
            throws IOException {
        assertJson(response, status);
        JsonNode body = JSON.readTree(response.body());
        assertThat(fieldNames(body)).as("fields of %s", response.body()).containsExactly("error", "detail");
        assertThat(body.get("error").asText()).isEqualTo(code);
        assertThat(body.get("detail").asText()).contains(detailParts);
    }

    /** The server still answers a good query on the same client. */
    private static void assertStillServes() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/search?q=meadow&k=1");
        assertJson(response, 200);
        assertThat(JSON.readTree(response.body()).get("hits")).hasSize(1);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asInt()));
        return values;
    }

    /** Id to score, in hit order. */
    private static Map<String, Float> idsAndScores(JsonNode hits) {
        Map<String, Float> scores = new LinkedHashMap<>();
        hits.forEach(hit -> scores.put(hit.get("id").asText(), hit.get("score").floatValue()));
        return scores;
    }

    /** The value of one sample; {@code kind} null for a sample without labels. */
    private static double counter(String scrape, String name, String kind) {
        String labels = kind == null ? "" : "\\{kind=\"" + kind + "\",?\\}";
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + labels + " (\\S+)$").matcher(scrape);
        assertThat(matcher.find()).as("%s{kind=%s} in %n%s", name, kind, scrape).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    private static SourceDocument document(String id) {
        return documents.get(Integer.parseInt(id.substring("doc-".length())));
    }

    /** Documents whose title or body holds {@code word} as a token, as the index counts them. */
    private static long docsContaining(String word) {
        return documents.stream()
                .filter(doc -> tokens(doc.value("title")).contains(word) || tokens(doc.value("body")).contains(word))
                .count();
    }

    private static List<String> tokens(String text) {
        return Arrays.asList(text.toLowerCase(Locale.ROOT).split("[^a-z]+"));
    }

    /** {@code doc-0}..: a title of three words and a body of two sentences, from {@link #WORDS}. */
    private static List<SourceDocument> documents(Random random, int count) {
        List<SourceDocument> docs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", words(random, 3));
            fields.put("body", words(random, 6 + random.nextInt(8)) + ". " + words(random, 6 + random.nextInt(8)) + ".");
            docs.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        return docs;
    }

    private static String words(Random random, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }
}
