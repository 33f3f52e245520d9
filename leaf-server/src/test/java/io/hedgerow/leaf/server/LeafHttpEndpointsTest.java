package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.metrics.PrometheusText;
import io.hedgerow.common.metrics.PrometheusText.Family;
import io.hedgerow.common.metrics.PrometheusText.Sample;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.http.LeafHttpConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leaf's HTTP port over real sockets: {@code /health} answers 200 from the start (liveness, not
 * readiness), {@code /ready} 503 with a reason until a root's assignment has opened and warmed
 * partitions, the HelloAck names the port to roots, and {@code /metrics} is Prometheus text that
 * a strict parser of format 0.0.4 accepts, with the leaf's own meters and the JVM's.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafHttpEndpointsTest {
    private static final String INDEX = "observed";
    private static final int PARTITIONS = 2;
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.hedgerowIndex(INDEX, PARTITIONS);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(PATIENCE).build();
    private LeafServer leaf;

    @AfterEach
    void stop() {
        http.close(); // the leaf and the sockets: RealLeaves
    }

    @Test
    void isAliveButNotReadyUntilARootAssignsItPartitions() throws Exception {
        leaf = leaves.start(leaves.config().withWorkers(1));
        assertThat(leaf.httpAddress()).startsWith("127.0.0.1:");

        HttpResponse<String> health = get("/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        HttpResponse<String> unassigned = get("/ready");
        assertThat(unassigned.statusCode()).isEqualTo(503);
        assertThat(unassigned.body()).contains("\"ready\":false", "\"status\":\"unassigned\"");

        FrameSocket root = leaves.open(leaf);
        HelloAck ack = root.hello(FrameSocket.ROOT_ID);
        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getHttpAddress()).as("the HelloAck names the HTTP port").isEqualTo(leaf.httpAddress());
        root.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).addPartitions(1)).build());
        AssignAck assigned = root.receive().getAssignAck();
        assertThat(assigned.getError()).isEmpty();

        HttpResponse<String> ready = get("/ready");
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
        assertThat(ready.body()).contains("\"ready\":true", "\"status\":\"ready\"");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void isAliveButNotReadyWhileItDrains() throws Exception {
        leaf = leaves.start(leaves.config().withWorkers(1).withFaultInjection(true)
                .withDrainTimeout(PATIENCE));
        FrameSocket root = leaves.root(leaf);
        assertThat(get("/ready").statusCode()).isEqualTo(200);
        // A search held on the only worker keeps the drain going while the probes are asked.
        assertThat(inject(root, PATIENCE.multipliedBy(2)).getInjectAck().getError()).isEmpty();
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(200).setPartition(0)
                .setQuery("meadow").setK(3)).build());
        Eventually.await(() -> leaf.delaysInjected() >= 1, "the only worker to hold the search");
        CompletableFuture<Void> closing = CompletableFuture.runAsync(leaf::close);
        assertThat(root.receive().getBodyCase()).as("the drain began").isEqualTo(Frame.BodyCase.DRAINING);

        HttpResponse<String> draining = get("/ready");
        assertThat(draining.statusCode()).isEqualTo(503);
        assertThat(draining.body()).contains("\"status\":\"draining\"");
        assertThat(get("/health").statusCode()).as("alive while it drains").isEqualTo(200);

        assertThat(inject(root, Duration.ZERO).getInjectAck().getError()).isEmpty();
        assertThat(root.receive().getResult().getStatus()).isEqualTo(Status.OK);
        closing.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    /** A delay of {@code length} on every sub-request for a minute (zero clears it). */
    private static Frame inject(FrameSocket root, Duration length) throws IOException {
        root.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(300 + length.toMillis())
                .setKind(FaultKind.DELAY).setDelayNanos(length.toNanos()).setProbability(1.0)
                .setDurationNanos(Duration.ofMinutes(1).toNanos())).build());
        return root.receive();
    }

    @Test
    void refusesOtherPathsAndMethods() throws Exception {
        leaf = leaves.start(leaves.config().withWorkers(1));
        HttpResponse<String> missing = get("/search");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("not_found", "/health, /ready or /metrics");
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void opensNoHttpPortWhenDisabled() throws Exception {
        leaf = leaves.start(leaves.config().withWorkers(1), LeafHttpConfig.disabled());
        assertThat(leaf.httpAddress()).isEmpty();
        FrameSocket root = leaves.open(leaf);
        assertThat(root.hello(FrameSocket.ROOT_ID).getHttpAddress()).isEmpty();
    }

    @Test
    void exportsTheLeafsMetersAndTheJvmsInPrometheusText() throws Exception {
        leaf = leaves.start(leaves.config().withWorkers(1));
        FrameSocket root = leaves.root(leaf);
        int searches = 5;
        for (int i = 0; i < searches; i++) {
            root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(100 + i)
                    .setPartition(i % PARTITIONS).setQuery("meadow").setK(3)
                    .setTotalHitsThreshold(Integer.MAX_VALUE)).build());
            assertThat(root.receive().getResult().getStatus()).isEqualTo(Status.OK);
        }
        System.gc(); // so the GC binder has seen a pause to report (its timer appears with the first)

        Map<String, Family> families = scrapeUntil("jvm_gc_pause_seconds");
        HttpResponse<String> response = get("/metrics");
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");

        assertThat(families.get("hedgerow_leaf_queue_depth").type()).isEqualTo("gauge");
        assertThat(families.get("hedgerow_leaf_queue_depth").samples().stream().map(s -> s.labels().get("class")))
                .containsExactlyInAnyOrder("interactive", "backup", "batch", "shadow");
        for (String timer : List.of("hedgerow_leaf_service_seconds", "hedgerow_leaf_queue_seconds")) {
            Family family = families.get(timer);
            assertThat(family).as(timer).isNotNull();
            assertThat(family.type()).isEqualTo("histogram");
            assertThat(value(family, timer + "_count", Map.of("kind", "search")))
                    .as("every answered search timed").isEqualTo(searches);
        }
        assertThat(families.get("hedgerow_leaf_assignments_total").samples().get(0).value()).isEqualTo(1);
        assertThat(families.get("hedgerow_leaf_partitions_open").samples().get(0).value()).isEqualTo(PARTITIONS);
        assertThat(families.get("hedgerow_leaf_ready").samples().get(0).value()).isEqualTo(1);
        assertThat(families.get("hedgerow_leaf_cancels_total").samples()).hasSize(6);
        assertThat(families.keySet()).contains("hedgerow_leaf_slices_yielded_total", "hedgerow_leaf_refreshes_total",
                "hedgerow_leaf_warmup_searches_total", "hedgerow_leaf_warmup_time_seconds_total",
                "hedgerow_leaf_expired_total", "hedgerow_leaf_inflight", "hedgerow_leaf_workers");
        // The JVM's, as every Hedgerow process exports them.
        assertThat(families.keySet()).contains("jvm_memory_used_bytes", "jvm_memory_max_bytes", "jvm_gc_pause_seconds",
                "jvm_threads_live_threads", "jvm_classes_loaded_classes", "process_cpu_usage", "system_cpu_count",
                "process_uptime_seconds", "jvm_compilation_time_ms_total");
        Family build = families.get("hedgerow_build_info");
        assertThat(build).as("build_info in " + families.keySet()).isNotNull();
        assertThat(build.samples().get(0).value()).isEqualTo(1);
        assertThat(build.samples().get(0).labels()).containsEntry("role", "leaf").containsKey("version");
        Set<String> ours = families.keySet().stream().filter(n -> n.startsWith("hedgerow_"))
                .filter(n -> !n.startsWith("hedgerow_leaf_") && !n.equals("hedgerow_build_info"))
                .collect(Collectors.toSet());
        assertThat(ours).as("a leaf's own meters are all hedgerow_leaf_*").isEmpty();
    }

    private Map<String, Family> scrapeUntil(String family) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            HttpResponse<String> response = get("/metrics");
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Family> families = PrometheusText.parse(response.body());
            if (families.containsKey(family)) {
                return families;
            }
            assertThat(System.nanoTime() - deadline).as("waiting for %s on /metrics", family).isNegative();
            Thread.onSpinWait();
        }
    }

    private static double value(Family family, String sample, Map<String, String> labels) {
        return family.samples().stream()
                .filter(s -> s.name().equals(sample) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).findFirst()
                .orElseThrow(() -> new AssertionError(sample + labels + " not in " + family.samples()));
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(PATIENCE).GET().build(), BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://" + leaf.httpAddress() + path);
    }
}
