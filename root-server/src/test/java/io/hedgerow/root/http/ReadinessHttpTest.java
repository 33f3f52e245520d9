package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.embedded.EmbeddedCluster;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ready} over real sockets, apart from {@code /health}: a root is not ready while it
 * warms up, while some partition has no replica on a leaf it reaches, or once it is stopping; it
 * is alive ({@code /health} 200) through the first two. Waits on the root's state, never on a sleep.
 */
class ReadinessHttpTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dataDir;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(PATIENCE).build();

    @AfterEach
    void close() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        http.close();
    }

    @Test
    void aRootIsAliveButNotReadyUntilItsWarmUpHasRun() throws Exception {
        EmbeddedCluster cluster = cluster(2);
        RootServer root = root(cluster, HttpSettings.defaults("127.0.0.1", 0));
        JsonNode warming = ready(root, 503);
        assertThat(warming.get("ready").asBoolean()).isFalse();
        assertThat(warming.get("status").asText()).isEqualTo("warming");
        assertThat(get(root, "/health").statusCode()).as("alive while warming").isEqualTo(200);

        String warmUp = root.warmUp(Duration.ofSeconds(1));
        assertThat(warmUp).as("the warm-up searched through the root's own port").isNotBlank();
        JsonNode ready = ready(root, 200);
        assertThat(ready.get("ready").asBoolean()).isTrue();
        assertThat(ready.get("status").asText()).isEqualTo("ready");
    }

    @Test
    void notReadyWhileAPartitionHasNoReplicaOnALeafItReaches() throws Exception {
        EmbeddedCluster cluster = cluster(1); // one replica a partition: losing a leaf loses its partitions
        RootServer root = cluster.root();
        assertThat(ready(root, 200).get("status").asText()).isEqualTo("ready");

        int[] lost = root.cluster().assignment().partitionsOf(1);
        assertThat(lost).isNotEmpty();
        cluster.leaves().get(1).close();
        Await.until("the root to see leaf 1 gone", PATIENCE, () -> get(root, "/ready").statusCode() != 200);
        JsonNode unavailable = ready(root, 503);
        assertThat(unavailable.get("status").asText()).isEqualTo("partitions_unavailable");
        assertThat(unavailable.get("detail").asText()).endsWith(Arrays.stream(lost).sorted().mapToObj(Integer::toString)
                .collect(Collectors.joining(", ", "[", "]")));
        assertThat(get(root, "/health").statusCode()).as("alive: leaf 0 still answers").isEqualTo(200);
    }

    @Test
    void aStoppingRootSaysItIsNotReadyOnAConnectionStillOpen() throws Exception {
        EmbeddedCluster cluster = cluster(2);
        // A long quiet period: the stopping root keeps an idle keep-alive connection open meanwhile.
        RootServer root = root(cluster, HttpSettings.defaults("127.0.0.1", 0).withQuietPeriod(PATIENCE)
                .withDrainTimeout(PATIENCE.multipliedBy(2)));
        root.warmUp(Duration.ZERO);
        Socket idle = new Socket("127.0.0.1", root.httpPort());
        idle.setSoTimeout((int) PATIENCE.toMillis());
        opened.add(idle);
        send(idle, "GET /ready HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(RawResponse.read(idle.getInputStream()).status()).isEqualTo(200);

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(root::close,
                command -> Thread.ofPlatform().name("root-stop").start(command));
        Await.until("the root to stop", PATIENCE, () -> root.readiness().stopping());
        send(idle, "GET /ready HTTP/1.1\r\nHost: x\r\n\r\n");
        RawResponse stopping = RawResponse.read(idle.getInputStream());
        assertThat(stopping.status()).isEqualTo(503);
        assertThat(JSON.readTree(stopping.body()).get("status").asText()).isEqualTo("stopping");
        assertThat(stopping.headers()).containsEntry("connection", "close");
        stopped.get();
    }

    private EmbeddedCluster cluster(int replicas) throws Exception {
        EmbeddedCluster cluster = EmbeddedCluster.builder(dataDir)
                .documents("ready", IndexConfig.defaults(), TestData.documents(31, 120))
                .leaves(2).partitions(4).replicas(replicas).http(0)
                .start();
        opened.add(cluster);
        return cluster;
    }

    /** A second root on the cluster's leaves, started but not warmed up. */
    private RootServer root(EmbeddedCluster cluster, HttpSettings settings) throws Exception {
        List<String> leaves = cluster.leaves().stream().map(LeafServer::address).toList();
        RootServer root = RootServer.start(ClusterConfig.of(cluster.manifest(), leaves, 2)
                        .withClusterSecret(cluster.root().cluster().config().clusterSecret()),
                settings, PATIENCE, null, ClusterState.randomRootId());
        opened.add(root);
        return root;
    }

    private JsonNode ready(RootServer root, int status) throws Exception {
        HttpResponse<String> response = get(root, "/ready");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> get(RootServer root, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort() + path))
                .timeout(PATIENCE).GET().build(), BodyHandlers.ofString());
    }

    private static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(US_ASCII));
        socket.getOutputStream().flush();
    }
}
