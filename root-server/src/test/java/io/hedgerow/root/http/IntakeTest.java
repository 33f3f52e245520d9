package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.admission.AdmissionSettings.Algorithm;
import io.hedgerow.root.admission.AdmissionSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root's intake over real sockets ({@link RootOnLeaves}): admission control without a queue refuses at once past its
 * limit (batch before interactive; the queue has tests of its own, {@link AdmissionQueueHttpTest}), a stopping root answers what it admitted and then closes, and the
 * connection limits close idle, trickling and surplus connections while others are served.
 * Searches are held in flight by a delay injected into every leaf; the tests wait on the root's
 * in-flight count, never on a sleep.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class IntakeTest {
    private static final Duration PATIENCE = RootOnLeaves.PATIENCE;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static RootOnLeaves fixture;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws Exception {
        fixture = RootOnLeaves.start(dataDir, "intake", 29, 2, true);
        http = fixture.http();
    }

    @AfterAll
    static void stopCluster() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @AfterEach
    void clear() throws Exception {
        fixture.afterEach();
    }

    @Test
    void withoutAQueueRefusesASearchPastTheLimitAtOnceWith503AndRetryAfterAndAnswersTheAdmittedOne() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withAdmission(
                AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(1, 1, 1).withMaxQueued(0)));
        fixture.holdSearches();
        CompletableFuture<HttpResponse<String>> admitted = http.sendAsync(get(root, "/search?q=alpha&cache=false"),
                BodyHandlers.ofString());
        Await.until("the first search in flight", PATIENCE, () -> root.admission().inflight() == 1);

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
        fixture.holdSearches();
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(get(root, "/search?q=alpha&cache=false"),
                BodyHandlers.ofString());
        Await.until("the first search in flight", PATIENCE, () -> root.admission().inflight() == 1);

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
        fixture.holdSearches();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(get(root, "/search?q=delta&cache=false"),
                BodyHandlers.ofString());
        Await.until("a search in flight", PATIENCE, () -> root.admission().inflight() == 1);

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(root::close);
        Await.until("the root stopping", PATIENCE, () -> root.readiness().stopping());
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
        fixture.holdSearches();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(get(root, "/search?q=delta&cache=false"),
                BodyHandlers.ofString());
        Await.until("a search in flight", PATIENCE, () -> root.admission().inflight() == 1);

        CompletableFuture<Void> stopped = stopInBackground(root);
        Await.until("the root stopping", PATIENCE, () -> root.readiness().stopping());
        assertThat(inFlight.get().statusCode()).as(inFlight.get().body()).isEqualTo(200);
        Await.until("only the idle connection left open", PATIENCE, () -> root.httpOpenConnections() == 1);

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
        Await.until("two connections open", PATIENCE, () -> root.httpOpenConnections() == 2);

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
        Await.until("three connections open", PATIENCE, () -> root.httpOpenConnections() == 3);
        Socket surplus = socket(root);
        assertThat(readAll(surplus)).as("the fourth connection is closed unanswered").isEmpty();
        third.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
        assertThat(readAll(third)).as("a connection within the limits is served").startsWith("HTTP/1.1 200 OK");

        assertThat(readAll(trickling)).as("a request that never arrives whole is not answered").isEmpty();
        assertThat(readAll(idle)).as("an idle connection is closed").isEmpty();
        assertThat(root.httpRefusedConnections()).isEqualTo(1);
        Await.until("every connection closed", PATIENCE, () -> root.httpOpenConnections() == 0);
        HttpResponse<String> health = http.send(get(root, "/health"), BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
    }

    @Test
    void keepsAConnectionWhoseRequestIsBeingAnsweredPastTheIdleTimeout() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withIdleTimeout(Duration.ofMillis(100)));
        fixture.holdSearches(); // 400 ms at the leaves: the connection reads and writes nothing for longer than 100 ms
        Socket socket = socket(root);
        send(socket, "GET /search?q=golf&cache=false HTTP/1.1\r\nHost: x\r\n\r\n");
        RawResponse answer = RawResponse.read(socket.getInputStream());
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(readAll(socket)).as("closed once idle between requests").isEmpty();
    }

    private static RootServer root(HttpSettings settings) throws Exception {
        return fixture.root(settings);
    }

    private static Socket socket(RootServer root) throws IOException {
        Socket socket = new Socket("127.0.0.1", root.httpPort());
        socket.setSoTimeout((int) PATIENCE.toMillis());
        fixture.closeAfterTest(socket);
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
        return RootOnLeaves.get(root, path);
    }
}
