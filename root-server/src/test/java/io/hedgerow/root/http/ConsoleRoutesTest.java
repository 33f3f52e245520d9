package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The console's files as a browser gets them, over real sockets from a real root (one leaf, a real
 * index): {@code /} is the page, {@code /console/*} the assets, each with its content type, an ETag
 * that revalidates to 304, and the page's Content-Security-Policy; an unknown asset, or any path that
 * tries to climb out of the console's files, is a 404 JSON error; the routes around it still answer.
 * Requests are written by hand on a socket, so no client normalizes a {@code ..} away before it
 * reaches the root. Also {@code /metrics/summary}, which the console's charts poll.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ConsoleRoutesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("console", IndexConfig.defaults(), TestData.documents(7, 60))
                .leaves(1).partitions(2).replicas(1).http(0)
                .start();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void servesThePageAtTheRootWithItsSecurityAndCacheHeaders() throws Exception {
        RawResponse page = get("/");

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.headers().get("content-type")).isEqualTo("text/html; charset=utf-8");
        assertThat(page.headers().get("cache-control")).isEqualTo("no-cache");
        assertThat(page.headers().get("x-content-type-options")).isEqualTo("nosniff");
        assertThat(page.headers().get("content-security-policy")).contains("default-src 'none'", "script-src 'self'")
                .doesNotContain("unsafe-inline", "http:", "https:");
        assertThat(page.headers().get("etag")).matches("\"[0-9a-f]{16}\"");
        assertThat(page.body()).isEqualTo(resource("index.html")).contains("/console/console.js", "/console/console.css");
    }

    @Test
    void servesEachAssetWithItsContentType() throws Exception {
        assertAsset("console.js", "text/javascript; charset=utf-8");
        assertAsset("console.css", "text/css; charset=utf-8");
        assertAsset("favicon.svg", "image/svg+xml");
    }

    @Test
    void answersNotModifiedWhenTheBrowsersCopyIsCurrent() throws Exception {
        String etag = get("/console/console.js").headers().get("etag");

        RawResponse again = send("GET /console/console.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag
                + "\r\nConnection: close\r\n\r\n");
        RawResponse stale = send("GET /console/console.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"0123456789abcdef\""
                + "\r\nConnection: close\r\n\r\n");

        assertThat(again.status()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
        assertThat(again.headers().get("etag")).isEqualTo(etag);
        assertThat(stale.status()).isEqualTo(200);
        assertThat(stale.body()).isEqualTo(resource("console.js"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/console/no-such.js", "/console/", "/console/index.html.bak",
            "/console/../http/openapi.json", "/console/../../../../../../etc/passwd", "/console/%2e%2e/http/openapi.json",
            "/console/..%2fhttp%2fopenapi.json", "/console/%2e%2e%2f%2e%2e%2fhttp%2fopenapi.json", "/console//etc/passwd",
            "/console/./console.js", "/console/console.js/", "/console/CONSOLE.JS", "/console/console.js%00.html",
            "/console/..\\http\\openapi.json"})
    void refusesUnknownAssetsAndEveryWayOutOfTheConsole(String path) throws Exception {
        RawResponse response = get(path);

        assertThat(response.status()).as(path).isEqualTo(404);
        assertThat(response.headers().get("content-type")).isEqualTo(HttpApiHandler.JSON_TYPE);
        JsonNode error = JSON.readTree(response.body());
        assertThat(error.path("error").asText()).isEqualTo("not_found");
        assertThat(error.path("detail").asText()).startsWith("no such console asset: ");
        assertThat(response.body()).doesNotContain("openapi\":", "root:x:0");
    }

    @Test
    void refusesOtherMethods() throws Exception {
        RawResponse post = send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

        assertThat(post.status()).isEqualTo(405);
        assertThat(post.headers().get("allow")).isEqualTo("GET");
    }

    @Test
    void leavesTheOtherRoutesAsTheyWere() throws Exception {
        RawResponse health = get("/health");
        RawResponse unknown = get("/consoles");
        RawResponse bare = get("/console");

        assertThat(health.status()).isEqualTo(200);
        assertThat(JSON.readTree(health.body()).path("status").asText()).isEqualTo("ok");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(JSON.readTree(unknown.body()).path("detail").asText()).startsWith("no such path: /consoles");
        assertThat(bare.status()).isEqualTo(404);
        assertThat(JSON.readTree(bare.body()).path("detail").asText()).startsWith("no such path: /console");
    }

    @Test
    void summarizesSearchesAndTheirLatencyForTheCharts() throws Exception {
        JsonNode before = JSON.readTree(get("/metrics/summary").body());
        for (int i = 0; i < 3; i++) {
            assertThat(get("/search?q=alpha&cache=false").status()).isEqualTo(200);
        }
        assertThat(get("/search?q=title:(alpha").status()).isEqualTo(400);

        // The root records a search once its answer is written, which may be just after the client read it.
        AtomicReference<JsonNode> summary = new AtomicReference<>();
        Await.until("the four searches in /metrics/summary", Duration.ofSeconds(30), () -> {
            summary.set(JSON.readTree(get("/metrics/summary").body()));
            return searches(summary.get(), "complete") - searches(before, "complete") >= 3
                    && searches(summary.get(), "error") - searches(before, "error") >= 1;
        });
        JsonNode after = summary.get();

        assertThat(after.path("searches").path("complete").asLong() - before.path("searches").path("complete").asLong())
                .isEqualTo(3);
        assertThat(after.path("searches").path("error").asLong() - before.path("searches").path("error").asLong())
                .isEqualTo(1);
        long answered = after.path("searches").path("complete").asLong() + after.path("searches").path("tainted").asLong();
        long inBuckets = 0;
        for (JsonNode bucket : after.path("latency").path("buckets")) {
            inBuckets += bucket.path("count").asLong();
        }
        assertThat(inBuckets).isEqualTo(answered);
        assertThat(after.path("hedges").has("backup")).isTrue();
        assertThat(after.path("time_ms").asLong()).isGreaterThanOrEqualTo(before.path("time_ms").asLong());
    }

    @Test
    void putsEachLatencyInTheBucketOfTheFirstBoundAtOrAboveIt() {
        long[] bounds = MetricsSummary.BOUNDS_MICROS;
        Histogram histogram = new Histogram(1, 60_000_000L, 3);
        histogram.recordValue(1);           // below the first bound: the first bucket
        histogram.recordValue(bounds[0]);   // at a bound: that bucket
        histogram.recordValue(bounds[1]);
        histogram.recordValue(60_000_000L); // the highest trackable: the last bucket

        long[] counts = MetricsSummary.bucketCounts(histogram);

        assertThat(bounds[0]).isEqualTo(10);
        assertThat(bounds[bounds.length - 1]).isGreaterThanOrEqualTo(60_000_000L);
        assertThat(bounds).isSorted().doesNotHaveDuplicates();
        assertThat(counts[0]).isEqualTo(2);
        assertThat(counts[1]).isEqualTo(1);
        assertThat(counts[bounds.length - 1]).isEqualTo(1);
        assertThat(java.util.Arrays.stream(counts).sum()).isEqualTo(4);
    }

    private static void assertAsset(String name, String type) throws Exception {
        RawResponse asset = get("/console/" + name);

        assertThat(asset.status()).as(name).isEqualTo(200);
        assertThat(asset.headers().get("content-type")).as(name).isEqualTo(type);
        assertThat(asset.headers().get("cache-control")).isEqualTo("no-cache");
        assertThat(asset.headers().get("etag")).isNotBlank();
        assertThat(asset.headers()).doesNotContainKey("content-security-policy");
        assertThat(asset.body()).isEqualTo(resource(name));
    }

    private static long searches(JsonNode summary, String outcome) {
        return summary.path("searches").path(outcome).asLong();
    }

    private static RawResponse get(String path) throws IOException {
        return send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }

    private static RawResponse send(String request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", cluster.httpPort()), 10_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(UTF_8));
            out.flush();
            return RawResponse.read(socket.getInputStream());
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = ConsoleRoutes.class.getResourceAsStream(ConsoleRoutes.RESOURCE_DIR + name)) {
            return new String(in.readAllBytes(), UTF_8);
        }
    }
}
