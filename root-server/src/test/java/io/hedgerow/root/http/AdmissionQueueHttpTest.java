package io.hedgerow.root.http;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.admission.AdmissionSettings.Algorithm;
import io.hedgerow.root.admission.Refusal;
import io.hedgerow.api.QueryPriority;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission's queue over real sockets ({@link RootOnLeaves}, as {@link IntakeTest}): a closed loop of more
 * clients than the limit is served without one refusal, its searches waiting at the root; a
 * queued search whose client disconnects leaves the queue. Searches are held in flight by a delay
 * injected into every leaf, so that the queue is seen to fill; the tests wait on the root's counts,
 * never on a sleep, and assert counts, not timings.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AdmissionQueueHttpTest {
    private static final Duration PATIENCE = RootOnLeaves.PATIENCE;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static RootOnLeaves fixture;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws Exception {
        fixture = RootOnLeaves.start(dataDir, "admission", 31, 2, true);
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
    void aClosedLoopOfMoreClientsThanTheLimitGetsNoRefusal() throws Exception {
        int clients = 8;
        int searchesEach = 6;
        RootServer root = root(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(2, 1, 2));
        fixture.holdSearches();
        List<CompletableFuture<List<Integer>>> loops = new ArrayList<>();
        for (int client = 0; client < clients; client++) {
            loops.add(closedLoop(root, client, searchesEach, new ArrayList<>()));
        }
        // Every client's first search arrived: 2 run, the other 6 wait at the root.
        Await.until("6 searches queued behind a limit of 2", PATIENCE, () -> root.admission().queued() == clients - 2);
        fixture.releaseSearches();

        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<List<Integer>> loop : loops) {
            statuses.addAll(loop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        }
        assertThat(statuses).hasSize(clients * searchesEach).containsOnly(200);
        assertThat(root.admission().rejected(QueryPriority.INTERACTIVE)).isZero();
        assertThat(root.admission().admitted()).isEqualTo(clients * searchesEach);
        assertThat(root.admission().waited()).isGreaterThanOrEqualTo(clients - 2);
        assertThat(root.admission().queued()).isZero();
        JsonNode admission = JSON.readTree(http.send(get(root, "/cluster"), BodyHandlers.ofString()).body())
                .get("admission");
        assertThat(admission.get("queue").get("waited").asLong()).isGreaterThanOrEqualTo(clients - 2);
        assertThat(admission.get("queue").get("capacity").asInt()).isEqualTo(AdmissionSettings.QUEUE_FLOOR);
        for (Refusal reason : Refusal.values()) {
            assertThat(admission.get("refused").get(reason.label()).asLong()).as(reason.label()).isZero();
        }
        assertThat(http.send(get(root, "/metrics"), BodyHandlers.ofString()).body())
                .containsPattern("hedgerow_admission_queue_delay_seconds_count \\d+")
                .contains("hedgerow_admission_queued ");
    }

    @Test
    void theSameClosedLoopWithoutAQueueIsRefused() throws Exception {
        // The behaviour before the queue, kept with --admission-queue 0: what the test above guards against.
        RootServer root = root(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(2, 1, 2)
                .withMaxQueued(0));
        fixture.holdSearches();
        List<CompletableFuture<List<Integer>>> loops = new ArrayList<>();
        for (int client = 0; client < 8; client++) {
            loops.add(closedLoop(root, client, 1, new ArrayList<>()));
        }
        Await.until("6 searches refused past a limit of 2", PATIENCE, () -> root.admission().rejected(QueryPriority.INTERACTIVE) == 6);
        fixture.releaseSearches();
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<List<Integer>> loop : loops) {
            statuses.addAll(loop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        }
        assertThat(statuses).filteredOn(status -> status == 503).hasSize(6);
    }

    @Test
    void aQueuedSearchWhoseClientDisconnectsLeavesTheQueue() throws Exception {
        RootServer root = root(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(1, 1, 1));
        fixture.holdSearches();
        CompletableFuture<HttpResponse<String>> running = http.sendAsync(get(root, "/search?q=alpha&cache=false"),
                BodyHandlers.ofString());
        Await.until("a search in flight", PATIENCE, () -> root.admission().inflight() == 1);
        Socket leaving = new Socket("127.0.0.1", root.httpPort());
        fixture.closeAfterTest(leaving);
        leaving.getOutputStream().write("GET /search?q=bravo&cache=false HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(US_ASCII));
        Await.until("the second search queued", PATIENCE, () -> root.admission().queued() == 1);

        leaving.close();
        Await.until("the queued search abandoned", PATIENCE, () -> root.admission().abandoned() == 1);
        assertThat(root.admission().queued()).isZero();
        fixture.releaseSearches();
        assertThat(running.get().statusCode()).isEqualTo(200);
        assertThat(root.admission().waited()).as("the abandoned search never started").isZero();
        assertThat(root.admission().admitted()).isEqualTo(1);
    }

    /** One client: {@code count} searches, each sent when the one before was answered. */
    private CompletableFuture<List<Integer>> closedLoop(RootServer root, int client, int count, List<Integer> statuses) {
        if (statuses.size() == count) {
            return CompletableFuture.completedFuture(statuses);
        }
        String query = "/search?q=" + (char) ('a' + client) + "lpha" + statuses.size() + "&cache=false";
        return http.sendAsync(get(root, query), BodyHandlers.discarding()).thenCompose(response -> {
            statuses.add(response.statusCode());
            return closedLoop(root, client, count, statuses);
        });
    }

    private static RootServer root(AdmissionSettings admission) throws Exception {
        return fixture.root(HttpSettings.defaults("127.0.0.1", 0).withAdmission(admission));
    }

    private static HttpRequest get(RootServer root, String path) {
        return RootOnLeaves.get(root, path);
    }
}
