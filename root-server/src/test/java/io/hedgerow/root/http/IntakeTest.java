package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.admission.AdmissionSettings.Algorithm;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.tail.TailSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root's intake over real sockets: admission control without a queue refuses at once past its
 * limit (batch before interactive; the queue has tests of its own, {@link AdmissionQueueHttpTest}), a stopping root answers what it admitted and then closes, and the
 * connection limits close idle, trickling and surplus connections while others are served.
 * Searches are held in flight by a delay injected into every leaf; the tests wait on the root's
 * in-flight count, never on a sleep.
 */
class IntakeTest {
    private static final int LEAVES = 2;
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("intake", IndexConfig.defaults(), TestData.documents(29, 200))
                .leaves(LEAVES).partitions(4).replicas(2)
                .faultInjection(true)
                // No canaries: a held search must not be taken for a dangerous one.
                .tail(TailSettings.defaults().withCanaries(0))
                .start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(PATIENCE).build();
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

    @AfterEach
    void clear() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            cluster.root().leafFaults().injectDelay(leaf, InjectedDelay.NONE).join();
        }
    }

    @Test
    void withoutAQueueRefusesASearchPastTheLimitAtOnceWith503AndRetryAfterAndAnswersTheAdmittedOne() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withAdmission(
                AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(1, 1, 1).withMaxQueued(0)));
        holdSearches();
        CompletableFuture<HttpResponse<String>> admitted = http.sendAsync(get(root, "/search?q=alpha&cache=false"),
                BodyHandlers.ofString());
        await(() -> root.admission().inflight() == 1, "the first search in flight");

        HttpResponse<String> refused = http.send(get(root, "/search?q=bravo&cache=false"), BodyHandlers.ofString());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
        JsonNode error = JSON.readTree(refused.body());
        assertThat(error.get("error").asText()).isEqualTo("overloaded");
        assertThat(error.get("detail").asText()).contains("1 in flight", "fixed admission control", "queues none",
                "refused: queue_full", "retry in 1 s");

        assertThat(admitted.get().statusCode()).as(admitted.get().body()).isEqualTo(200);
        assertThat(root.admission().rejected(QueryPriority.INTERACTIVE)).isEqualTo(1);
        assertThat(root.admission().inflight()).isZero();
        JsonNode admission = JSON.readTree(http.send(get(root, "/cluster"), BodyHandlers.ofString()).body()).get("admission");
        assertThat(admission.get("limit").asInt()).isEqualTo(1);
        assertThat(admission.get("rejected").get("interactive").asLong()).isEqualTo(1);
        assertThat(admission.get("refused").get("queue_full").asLong()).isEqualTo(1);
        assertThat(admission.get("refused").get("deadline").asLong()).isZero();
        String metrics = http.send(get(root, "/metrics"), BodyHandlers.ofString()).body();
        assertThat(metrics)
                .containsPattern("hedgerow_admission_rejected_total\\{priority=\"interactive\"\\} 1(\\.0)?\\n")
                .containsPattern("hedgerow_admission_refused_total\\{reason=\"queue_full\"\\} 1(\\.0)?\\n");
    }

    @Test
    void shedsBatchSearchesBeforeInteractiveOnes() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withAdmission(
                AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(2, 1, 2).withBatchShare(0.5)
                        .withMaxQueued(0)));
        holdSearches();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(get(root, "/search?q=alpha&cache=false"),
                BodyHandlers.ofString());
        await(() -> root.admission().inflight() == 1, "the first search in flight");

        HttpResponse<String> batch = http.send(get(root, "/search?q=bravo&cache=false&priority=batch"), BodyHandlers.ofString());
        assertThat(batch.statusCode()).as("batch past half the limit: %s", batch.body()).isEqualTo(503);
        assertThat(batch.body()).contains("\"error\":\"overloaded\"", "batch searches");
        CompletableFuture<HttpResponse<String>> interactive = http.sendAsync(get(root, "/search?q=charlie&cache=false"),
                BodyHandlers.ofString());
        assertThat(interactive.get().statusCode()).as("interactive still admitted: %s", interactive.get().body())
                .isEqualTo(200);
        assertThat(first.get().statusCode()).isEqualTo(200);
        assertThat(root.admission().rejected(QueryPriority.BATCH)).isEqualTo(1);
        assertThat(root.admission().rejected(QueryPriority.INTERACTIVE)).isZero();
    }

    @Test
    void aStoppingRootAnswersTheSearchesItAdmittedThenStopsListening() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0));
        int port = root.httpPort();
        holdSearches();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(get(root, "/search?q=delta&cache=false"),
                BodyHandlers.ofString());
        await(() -> root.admission().inflight() == 1, "a search in flight");

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(root::close);
        await(() -> root.readiness().stopping(), "the root stopping");
        HttpResponse<String> answer = inFlight.get();
        assertThat(answer.statusCode()).as("the search admitted before the stop: %s", answer.body()).isEqualTo(200);
        assertThat(JSON.readTree(answer.body()).get("hits").size()).isPositive();
        assertThat(answer.headers().firstValue("connection")).as("an answer written while the root drains closes its"
                + " connection, so the client's next request goes elsewhere").hasValue("close");
        stopped.get();
        assertThat(root.readiness().state().status()).isEqualTo("stopping");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            throw new AssertionError("the stopped root still accepts connections on " + port + ": " + socket);
        } catch (ConnectException expected) {
            assertThat(expected).hasMessageContaining("Connection refused");
        }
    }

    @Test
    void aStoppingRootRefusesARequestOnAnIdleKeepAliveConnectionInsteadOfClosingItUnderTheClient() throws Exception {
        // A long quiet period: the idle connection stays open after the searches are drained.
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withQuietPeriod(PATIENCE)
                .withDrainTimeout(PATIENCE.multipliedBy(2)));
        Socket idle = socket(root);
        send(idle, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(RawResponse.read(idle.getInputStream()).headers()).containsEntry("connection", "keep-alive");
        holdSearches();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(get(root, "/search?q=delta&cache=false"),
                BodyHandlers.ofString());
        await(() -> root.admission().inflight() == 1, "a search in flight");

        CompletableFuture<Void> stopped = stopInBackground(root);
        await(() -> root.readiness().stopping(), "the root stopping");
        assertThat(inFlight.get().statusCode()).as(inFlight.get().body()).isEqualTo(200);
        await(() -> root.httpOpenConnections() == 1, "only the idle connection left open");

        // The client writes on its idle keep-alive connection after the searches are drained.
        send(idle, "GET /search?q=echo&cache=false HTTP/1.1\r\nHost: x\r\n\r\n");
        RawResponse refused = RawResponse.read(idle.getInputStream());
        assertThat(refused.status()).as(refused.body()).isEqualTo(503);
        assertThat(JSON.readTree(refused.body()).get("error").asText()).isEqualTo("shutting_down");
        assertThat(refused.headers()).containsEntry("connection", "close");
        assertThat(idle.getInputStream().read()).as("closed after the refusal").isEqualTo(-1);

        stopped.get(); // no connection left: the stop ends without waiting for the quiet period
        assertThat(root.stopReport()).contains("1 searches in flight at the stop, all answered",
                "1 refused as shutting down", "0 closed idle", "0 cut at the drain timeout");
    }

    @Test
    void aStoppingRootClosesIdleConnectionsOnceQuietButAnswersARequestStillArriving() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withQuietPeriod(Duration.ofMillis(50))
                .withRequestTimeout(PATIENCE).withDrainTimeout(PATIENCE.multipliedBy(2)));
        Socket idle = socket(root);
        send(idle, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(RawResponse.read(idle.getInputStream()).status()).isEqualTo(200);
        Socket arriving = socket(root);
        send(arriving, "GET /search?q=foxtrot&cache=false HTTP/1.1\r\nHost: x\r\n"); // the head's end not sent yet
        await(() -> root.httpOpenConnections() == 2, "two connections open");

        CompletableFuture<Void> stopped = stopInBackground(root);
        assertThat(readAll(idle)).as("the idle connection is closed once nothing has arrived for 50 ms").isEmpty();
        send(arriving, "\r\n");
        RawResponse refused = RawResponse.read(arriving.getInputStream());
        assertThat(refused.status()).as("the request that was arriving is answered: %s", refused.body()).isEqualTo(503);
        assertThat(JSON.readTree(refused.body()).get("error").asText()).isEqualTo("shutting_down");
        assertThat(refused.headers()).containsEntry("connection", "close");
        assertThat(arriving.getInputStream().read()).isEqualTo(-1);

        stopped.get();
        assertThat(root.stopReport()).contains("0 searches in flight at the stop", "1 refused as shutting down",
                "2 HTTP connections open: 1 closed after their last answer or by their client, 1 closed idle after a"
                        + " quiet period of 50ms, 0 cut at the drain timeout");
    }

    @Test
    void closesIdleAndTricklingConnectionsAndOnesPastTheCapWhileServingOthers() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withMaxConnections(3)
                .withIdleTimeout(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofMillis(300)));
        Socket idle = socket(root);
        Socket trickling = socket(root);
        trickling.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(US_ASCII)); // never ends
        Socket third = socket(root);
        await(() -> root.httpOpenConnections() == 3, "three connections open");
        Socket surplus = socket(root);
        assertThat(readAll(surplus)).as("the fourth connection is closed unanswered").isEmpty();
        third.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
        assertThat(readAll(third)).as("a connection within the limits is served").startsWith("HTTP/1.1 200 OK");

        assertThat(readAll(trickling)).as("a request that never arrives whole is not answered").isEmpty();
        assertThat(readAll(idle)).as("an idle connection is closed").isEmpty();
        assertThat(root.httpRefusedConnections()).isEqualTo(1);
        await(() -> root.httpOpenConnections() == 0, "every connection closed");
        HttpResponse<String> health = http.send(get(root, "/health"), BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
    }

    @Test
    void keepsAConnectionWhoseRequestIsBeingAnsweredPastTheIdleTimeout() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withIdleTimeout(Duration.ofMillis(100)));
        holdSearches(); // 400 ms at the leaves: the connection reads and writes nothing for longer than 100 ms
        Socket socket = socket(root);
        send(socket, "GET /search?q=golf&cache=false HTTP/1.1\r\nHost: x\r\n\r\n");
        RawResponse answer = RawResponse.read(socket.getInputStream());
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(readAll(socket)).as("closed once idle between requests").isEmpty();
    }

    /** A delay at every leaf long enough that a search stays in flight while the test acts. */
    private static void holdSearches() {
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            cluster.root().leafFaults().injectDelay(leaf, InjectedDelay.of(Duration.ofMillis(400), 1.0,
                    Duration.ofSeconds(60))).join();
        }
    }

    private RootServer root(HttpSettings settings) throws Exception {
        List<String> leaves = cluster.leaves().stream().map(LeafServer::address).toList();
        RootServer root = RootServer.start(ClusterConfig.of(cluster.manifest(), leaves, 2)
                        .withDefaultTimeout(Duration.ofSeconds(20)).withTail(TailSettings.defaults().withCanaries(0))
                        .withClusterSecret(cluster.root().cluster().config().clusterSecret()),
                settings, PATIENCE, null, ClusterState.randomRootId());
        opened.add(root);
        return root;
    }

    private Socket socket(RootServer root) throws IOException {
        Socket socket = new Socket("127.0.0.1", root.httpPort());
        socket.setSoTimeout((int) PATIENCE.toMillis());
        opened.add(socket);
        return socket;
    }

    /**
     * Stops the root on a thread of its own: its drain can take the whole quiet period, and on two
     * cores the common pool has a single thread, which the HTTP client's completions also need.
     */
    private static CompletableFuture<Void> stopInBackground(RootServer root) {
        return CompletableFuture.runAsync(root::close, command -> Thread.ofPlatform().name("root-stop").start(command));
    }

    private static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(US_ASCII));
        socket.getOutputStream().flush();
    }

    /** Everything the server sends until it closes the connection. */
    private static String readAll(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        return new String(in.readAllBytes(), US_ASCII);
    }

    private static HttpRequest get(RootServer root, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort() + path)).timeout(PATIENCE).GET()
                .build();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s", what).isNegative();
            Thread.sleep(2); // not a spin: the root under test shares the two cores
        }
    }
}
