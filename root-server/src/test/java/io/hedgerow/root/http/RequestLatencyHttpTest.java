package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.metrics.RequestLatency;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the root says about its own searches, for a load generator to set next to what it measured:
 * {@code /metrics/latency} (each search's time from its first byte in to its last byte out, by
 * outcome), {@code hedgerow_search_requests_total} and {@code hedgerow_subrequests_needed_total}.
 */
class RequestLatencyHttpTest {
    private static final int PARTITIONS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws IOException, InterruptedException {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            documents.add(new SourceDocument("doc-" + i, Map.of("title", "hedge " + i, "body",
                    (i % 2 == 0 ? "meadow" : "bramble") + " and hawthorn number " + i), i + 1));
        }
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("latency", IndexConfig.defaults(), documents)
                .leaves(2).partitions(PARTITIONS).replicas(2)
                .http(0)
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
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
    void countsEverySearchByOutcomeWithItsWholeHistogram() throws Exception {
        JsonNode before = latency();
        String metricsBefore = get("/metrics").body();

        assertThat(get("/search?q=meadow&cache=false").statusCode()).isEqualTo(200);
        assertThat(get("/search?q=hawthorn&k=3&cache=false").statusCode()).isEqualTo(200);
        assertThat(get("/search?q=title:(foo&cache=false").statusCode()).isEqualTo(400);
        assertThat(get("/search?k=0").statusCode()).as("refused before it is a search").isEqualTo(400);
        assertThat(get("/health").statusCode()).as("not a search").isEqualTo(200);

        JsonNode after = latency();
        assertThat(after.get("unit").asText()).isEqualTo("microseconds");
        assertThat(count(after, "complete") - count(before, "complete")).isEqualTo(2);
        assertThat(count(after, "tainted") - count(before, "tainted")).isZero();
        assertThat(count(after, "error") - count(before, "error")).isEqualTo(2);
        for (String outcome : List.of("complete", "tainted", "error")) {
            Histogram histogram = RequestLatency.decode(after.get(outcome).get("histogram").asText());
            assertThat(histogram.getTotalCount()).as(outcome).isEqualTo(count(after, outcome));
        }
        String metricsAfter = get("/metrics").body();
        assertThat(MetricsText.sum(metricsAfter, "hedgerow_search_requests_total", "")
                - MetricsText.sum(metricsBefore, "hedgerow_search_requests_total", "")).isEqualTo(4);
        // Two searches reached the leaves (the root refuses the bad query, which it parses as they
        // would), one sub-request per partition each; each fetched from at least one leaf, at most two.
        assertThat(MetricsText.sum(metricsAfter, "hedgerow_subrequests_needed_total", "phase=\"query\"")
                - MetricsText.sum(metricsBefore, "hedgerow_subrequests_needed_total", "phase=\"query\"")).isEqualTo(2 * PARTITIONS);
        assertThat(MetricsText.sum(metricsAfter, "hedgerow_subrequests_needed_total", "phase=\"fetch\"")
                - MetricsText.sum(metricsBefore, "hedgerow_subrequests_needed_total", "phase=\"fetch\"")).isBetween(2.0, 4.0);
        // The root's own CPU time, for a load generator to say what a phase cost it.
        assertThat(MetricsText.sum(metricsAfter, "process_cpu_time_ns_total", ""))
                .isGreaterThan(MetricsText.sum(metricsBefore, "process_cpu_time_ns_total", ""));
    }

    @Test
    void timesASearchFromTheFirstByteOfItsRequest() throws Exception {
        Histogram before = RequestLatency.decode(settledLatency().get("complete").get("histogram").asText());
        try (Socket socket = new Socket("127.0.0.1", cluster.httpPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            // The request line first, the rest 300 ms later: the root's time must include the wait.
            out.write("GET /search?q=meadow&cache=false HTTP/1.1\r\n".getBytes(UTF_8));
            out.flush();
            Thread.sleep(300);
            out.write("Host: test\r\n\r\n".getBytes(UTF_8));
            out.flush();
            assertThat(RawResponse.read(in).status()).isEqualTo(200);
        }
        // The root records a search once its response is written, which may be just after the client read it.
        Histogram after = RequestLatency.decode(latency().get("complete").get("histogram").asText());
        for (long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                after.getTotalCount() - before.getTotalCount() < 1 && System.nanoTime() < deadline; ) {
            Thread.sleep(10);
            after = RequestLatency.decode(latency().get("complete").get("histogram").asText());
        }
        after.subtract(before);
        assertThat(after.getTotalCount()).isEqualTo(1);
        // Timed from the full request, it would be a few ms. Not the whole 300 ms either: on a loaded
        // machine the event loop may read the first bytes some tens of ms after they were sent.
        assertThat(after.getMaxValue()).as("microseconds from the first byte").isGreaterThanOrEqualTo(150_000);
    }

    private static JsonNode latency() throws IOException, InterruptedException {
        var response = get("/metrics/latency");
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    /** The latency report once an earlier search's record (made after its response went out) has landed. */
    private static JsonNode settledLatency() throws Exception {
        JsonNode previous = latency();
        while (true) {
            Thread.sleep(50);
            JsonNode now = latency();
            if (now.equals(previous)) {
                return now;
            }
            previous = now;
        }
    }

    private static long count(JsonNode latency, String outcome) {
        return latency.get(outcome).get("count").asLong();
    }


    private static java.net.http.HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), BodyHandlers.ofString(UTF_8));
    }
}
