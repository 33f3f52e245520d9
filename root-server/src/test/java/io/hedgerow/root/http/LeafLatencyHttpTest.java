package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.tail.TailSettings;
import java.io.IOException;
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
 * {@code /metrics/leaves} over real sockets: each leaf's service, queue, round-trip and CPU histograms
 * count every search and fetch sub-request the root sent and got an answer to. Hedging, canaries
 * and adaptation are off, so every sub-request sent is needed and answered OK before its search's
 * response is written: the counts are exact.
 */
class LeafLatencyHttpTest {
    private static final int PARTITIONS = 4;
    private static final int LEAVES = 2;
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
                .documents("leaves", IndexConfig.defaults(), documents)
                .leaves(LEAVES).partitions(PARTITIONS).replicas(2)
                .hedge(HedgeSettings.defaults().withDefaultMode(HedgeMode.OFF))
                .tail(TailSettings.defaults().withCanaries(0))
                .adaptation(AdaptationSettings.off())
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
    void countsEverySubRequestSentPerLeafPhaseAndPart() throws Exception {
        JsonNode before = leaves();
        String metricsBefore = get("/metrics").body();

        int searches = 5;
        for (int i = 0; i < searches; i++) {
            assertThat(get("/search?q=" + (i % 2 == 0 ? "meadow" : "hawthorn") + "&cache=false").statusCode()).isEqualTo(200);
        }

        JsonNode after = leaves();
        String metricsAfter = get("/metrics").body();
        assertThat(after.get("unit").asText()).isEqualTo("microseconds");
        assertThat(after.get("leaves")).hasSize(LEAVES);
        double searchesSent = MetricsText.sum(metricsAfter, "hedgerow_subrequests_total", "")
                - MetricsText.sum(metricsBefore, "hedgerow_subrequests_total", "");
        double fetchesSent = MetricsText.sum(metricsAfter, "hedgerow_subrequests_needed_total", "phase=\"fetch\"")
                - MetricsText.sum(metricsBefore, "hedgerow_subrequests_needed_total", "phase=\"fetch\"");
        // hedgerow_subrequests_total counts fetches too (kind="fetch")
        double fetchKind = MetricsText.sum(metricsAfter, "hedgerow_subrequests_total", "kind=\"fetch\"")
                - MetricsText.sum(metricsBefore, "hedgerow_subrequests_total", "kind=\"fetch\"");
        assertThat(searchesSent - fetchKind).as("search sub-requests sent").isEqualTo(searches * PARTITIONS);
        assertThat(fetchKind).isEqualTo(fetchesSent).isGreaterThanOrEqualTo(searches);

        for (String phase : List.of("search", "fetch")) {
            long expected = phase.equals("search") ? searches * PARTITIONS : (long) fetchesSent;
            for (String part : List.of("service", "queue", "round_trip", "cpu")) {
                long total = 0;
                for (int leaf = 0; leaf < LEAVES; leaf++) {
                    JsonNode entry = after.get("leaves").get(leaf);
                    assertThat(entry.get("leaf").asInt()).isEqualTo(leaf);
                    assertThat(entry.get("address").asText()).isNotEmpty();
                    Histogram delta = histogram(after, leaf, phase, part);
                    delta.subtract(histogram(before, leaf, phase, part));
                    assertThat(delta.getTotalCount()).as("the encoded histogram agrees with the count")
                            .isEqualTo(count(after, leaf, phase, part) - count(before, leaf, phase, part));
                    total += delta.getTotalCount();
                }
                assertThat(total).as(phase + " " + part + ", all leaves").isEqualTo(expected);
            }
        }
        // The leaf's own time is part of the round trip the root saw, and its CPU time part of its own
        // time, answer by answer, so at every percentile.
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            Histogram service = histogram(after, leaf, "search", "service");
            Histogram roundTrip = histogram(after, leaf, "search", "round_trip");
            Histogram cpu = histogram(after, leaf, "search", "cpu");
            if (service.getTotalCount() > 0) {
                assertThat(roundTrip.getValueAtPercentile(50))
                        .isGreaterThanOrEqualTo(service.getValueAtPercentile(50) * 99 / 100);
                assertThat(cpu.getValueAtPercentile(50)).isLessThanOrEqualTo(service.getValueAtPercentile(50) * 101 / 100);
            }
        }
    }

    private static JsonNode leaves() throws IOException, InterruptedException {
        var response = get("/metrics/leaves");
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static JsonNode part(JsonNode body, int leaf, String phase, String part) {
        return body.get("leaves").get(leaf).get(phase).get(part);
    }

    private static long count(JsonNode body, int leaf, String phase, String part) {
        return part(body, leaf, phase, part).get("count").asLong();
    }

    private static Histogram histogram(JsonNode body, int leaf, String phase, String part) throws Exception {
        return RequestLatency.decode(part(body, leaf, phase, part).get("histogram").asText());
    }

    private static java.net.http.HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.httpPort() + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), BodyHandlers.ofString(UTF_8));
    }
}
