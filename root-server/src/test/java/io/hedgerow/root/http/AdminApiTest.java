package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.fault.LeafFaultException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /admin/leaves/{n}/delay} and {@code /stall} over a real socket: an embedded cluster with fault injection,
 * asked with {@link HttpClient}. The root forwards each injection to the leaf and answers with
 * what the leaf put in effect; every bad request is a JSON 4xx that changes nothing.
 */
class AdminApiTest {
    private static final int LEAVES = 3;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static EmbeddedCluster cluster;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = EmbeddedCluster.builder(dataDir)
                .documents("admin", IndexConfig.defaults(), TestData.documents(23, 200))
                .leaves(LEAVES).partitions(6).replicas(2)
                .faultInjection(true)
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

    @AfterEach
    void clearEveryFault() {
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            cluster.root().leafFaults().injectDelay(leaf, InjectedDelay.NONE).join();
            cluster.root().leafFaults().injectStall(leaf, InjectedStall.NONE).join();
        }
    }

    @Test
    void injectsADelayIntoOneLeafAndClearsItWithDelete() throws Exception {
        HttpResponse<String> response = post("/admin/leaves/1/delay",
                "{\"delay_ms\": 250, \"probability\": 0.5, \"duration_ms\": 30000, \"seed\": 5}");

        JsonNode body = json(response, 200);
        assertThat(body.get("leaf").asInt()).isEqualTo(1);
        assertThat(body.get("delay_ms").asDouble()).isEqualTo(250.0);
        assertThat(body.get("probability").asDouble()).isEqualTo(0.5);
        assertThat(body.get("duration_ms").asLong()).isEqualTo(30000);
        assertThat(body.get("seed").asLong()).isEqualTo(5);
        assertThat(body.get("distribution").asText()).isEqualTo("fixed");
        assertThat(body.get("result").asText()).isEqualTo("delaying sub-requests by 250ms with probability 0.5 for 30s (seed 5)");
        assertThat(delayAt(1)).contains(new InjectedDelay(Duration.ofMillis(250).toNanos(), 0.5,
                Duration.ofSeconds(30).toNanos(), 5));
        assertThat(delayAt(0)).isEmpty();
        assertThat(delayAt(2)).isEmpty();

        JsonNode cleared = json(send(HttpRequest.newBuilder(uri("/admin/leaves/1/delay")).DELETE()), 200);
        assertThat(cleared.toString()).isEqualTo("{\"leaf\":1,\"result\":\"cleared\"}");
        assertThat(delayAt(1)).isEmpty();
    }

    @Test
    void clearsWithAZeroDelayAndFillsInDefaults() throws Exception {
        JsonNode body = json(post("/admin/leaves/2/delay", "{\"delay_ms\": 5}"), 200);
        assertThat(body.get("probability").asDouble()).isEqualTo(1.0);
        assertThat(body.get("duration_ms").asLong()).isEqualTo(DelayRequestParser.DEFAULT_DURATION_MS);
        assertThat(body.get("seed").asLong()).as("chosen by the leaf").isNotZero();
        assertThat(delayAt(2)).hasValueSatisfying(delay -> assertThat(delay.seed()).isEqualTo(body.get("seed").asLong()));

        assertThat(json(post("/admin/leaves/2/delay", "{\"delay_ms\": 0}"), 200).get("result").asText()).isEqualTo("cleared");
        assertThat(delayAt(2)).isEmpty();
    }

    @Test
    void slowsSearchesDownWhileEveryLeafIsDelayed() throws Exception {
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            json(post("/admin/leaves/" + leaf + "/delay", "{\"delay_ms\": 200, \"duration_ms\": 30000}"), 200);
        }

        JsonNode result = json(send(HttpRequest.newBuilder(uri("/search?q=alpha&k=3&timeout_ms=20000")).GET()), 200);

        // A lower bound only: both the query phase and the fetch phase wait at least 200 ms.
        assertThat(result.get("took_ms").asDouble()).isGreaterThanOrEqualTo(400.0);
        assertThat(result.get("tainted").asBoolean()).isFalse();
        long held = cluster.leaves().stream().mapToLong(LeafServer::delaysInjected).sum();
        assertThat(held).as("sub-requests held by the leaves").isGreaterThanOrEqualTo(6 + 1);
    }

    @Test
    void refusesBadRequestsNamingWhatWasWrongAndChangesNothing() throws Exception {
        assertError(post("/admin/leaves/1/delay", "{\"delay\": 50}"), 400, "bad_request",
                "unknown field 'delay' (expected one of: delay_ms, probability, duration_ms, seed, distribution)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"distribution\": \"gaussian\"}"), 400, "bad_request",
                "distribution: 'gaussian' (expected: fixed or exponential)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"distribution\": 1}"), 400, "bad_request",
                "field 'distribution' must be a string");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 70000}"), 400, "bad_request",
                "delay_ms: 70000.0 (expected: 0..60000)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": -1}"), 400, "bad_request", "delay_ms: -1.0 (expected: 0..60000)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"probability\": 1.5}"), 400, "bad_request",
                "probability: 1.5 (expected: 0..1)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"duration_ms\": 0}"), 400, "bad_request",
                "duration_ms: 0 (expected: 1..3600000)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"duration_ms\": 3600001}"), 400, "bad_request",
                "duration_ms: 3600001 (expected: 1..3600000)");
        assertError(post("/admin/leaves/1/delay", "{\"probability\": 0.5}"), 400, "bad_request",
                "missing field 'delay_ms' (expected: milliseconds, or 0 to clear)");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": \"50ms\"}"), 400, "bad_request", "field 'delay_ms' must be a number");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50, \"duration_ms\": 1.5}"), 400, "bad_request",
                "field 'duration_ms' must be an integer");
        assertError(post("/admin/leaves/1/delay", "{\"delay_ms\": 50"), 400, "bad_request", "malformed JSON");
        assertError(post("/admin/leaves/1/delay", "[50]"), 400, "bad_request", "body must be a JSON object");
        assertError(post("/admin/leaves/1/delay", ""), 400, "bad_request", "empty body (expected: a JSON object such as");
        assertError(send(HttpRequest.newBuilder(uri("/admin/leaves/1/delay")).header("Content-Type", "text/plain")
                .POST(BodyPublishers.ofString("{\"delay_ms\": 50}"))), 415, "unsupported_media_type", "text/plain");
        assertError(post("/admin/leaves/one/delay", "{\"delay_ms\": 50}"), 400, "bad_request",
                "leaf: 'one' (expected: a leaf number)");
        assertError(post("/admin/leaves/7/delay", "{\"delay_ms\": 50}"), 404, "not_found", "leaf 7 (expected: 0..2)");
        assertError(post("/admin/leaves/1/melt", "{}"), 404, "not_found",
                "no such path: /admin/leaves/1/melt (expected: /admin/leaves/{n}/restart, /admin/leaves/{n}/delay or "
                        + "/admin/leaves/{n}/stall)");
        HttpResponse<String> get = send(HttpRequest.newBuilder(uri("/admin/leaves/1/delay")).GET());
        assertError(get, 405, "method_not_allowed", "GET /admin/leaves/1/delay (allowed: POST, DELETE)");
        assertThat(get.headers().firstValue("allow")).contains("POST, DELETE");
        assertError(post("/admin/leaves/1/restart", ""), 501, "not_implemented", "needs a local cluster");

        for (int leaf = 0; leaf < LEAVES; leaf++) {
            assertThat(delayAt(leaf)).as("leaf %d", leaf).isEmpty();
        }
        assertThat(json(send(HttpRequest.newBuilder(uri("/search?q=alpha&k=1")).GET()), 200).get("hits")).hasSize(1);
    }

    @Test
    void aRollingRestartNeedsRollingTrueAndALocalCluster() throws Exception {
        assertError(post("/admin/leaves/restart", ""), 400, "bad_request",
                "rolling: missing (expected: true; only rolling restarts of all leaves exist)");
        assertError(post("/admin/leaves/restart?rolling=false", ""), 400, "bad_request",
                "rolling: false (expected: true; only rolling restarts of all leaves exist)");
        assertError(post("/admin/leaves/restart?rolling=true", ""), 501, "not_implemented",
                "a rolling restart needs a local cluster ('hedgerow local'), which started its leaves");
    }

    @Test
    void injectsAnExponentialDelay() throws Exception {
        JsonNode body = json(post("/admin/leaves/0/delay",
                "{\"delay_ms\": 1000, \"probability\": 0.01, \"distribution\": \"exponential\", \"seed\": 3}"), 200);

        assertThat(body.get("distribution").asText()).isEqualTo("exponential");
        assertThat(body.get("result").asText()).isEqualTo(
                "delaying sub-requests by an exponential draw (mean 1s, at most 1m) with probability 0.01 for 1m (seed 3)");
        assertThat(delayAt(0)).contains(new InjectedDelay(Duration.ofSeconds(1).toNanos(), 0.01,
                Duration.ofMillis(DelayRequestParser.DEFAULT_DURATION_MS).toNanos(), 3, InjectedDelay.Distribution.EXPONENTIAL));
    }

    // ------------------------------------------------------------------ stalls

    @Test
    void injectsAStallIntoOneLeafLeavingItsDelayAloneAndClearsItWithDelete() throws Exception {
        json(post("/admin/leaves/1/delay", "{\"delay_ms\": 5, \"probability\": 0.5, \"seed\": 2}"), 200);

        JsonNode body = json(post("/admin/leaves/1/stall", "{\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 30000}"), 200);

        assertThat(body.toString()).isEqualTo("{\"leaf\":1,\"result\":\"stalling the leaf for 150ms every 1s for 30s\","
                + "\"stall_ms\":150.0,\"every_ms\":1000.0,\"duration_ms\":30000}");
        assertThat(stallAt(1)).contains(InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1), Duration.ofSeconds(30)));
        assertThat(stallAt(0)).isEmpty();
        assertThat(delayAt(1)).as("a stall replaces only a stall").isPresent();

        JsonNode cleared = json(send(HttpRequest.newBuilder(uri("/admin/leaves/1/stall")).DELETE()), 200);
        assertThat(cleared.toString()).isEqualTo("{\"leaf\":1,\"result\":\"cleared\"}");
        assertThat(stallAt(1)).isEmpty();
        assertThat(delayAt(1)).as("a stall's clear leaves the delay").isPresent();
    }

    @Test
    void clearsAStallWithAZeroStallAndFillsInTheDuration() throws Exception {
        JsonNode body = json(post("/admin/leaves/2/stall", "{\"stall_ms\": 0.5, \"every_ms\": 2.5}"), 200);
        assertThat(body.get("stall_ms").asDouble()).isEqualTo(0.5);
        assertThat(body.get("duration_ms").asLong()).isEqualTo(StallRequestParser.DEFAULT_DURATION_MS);
        assertThat(stallAt(2)).contains(new InjectedStall(500_000, 2_500_000,
                Duration.ofMillis(StallRequestParser.DEFAULT_DURATION_MS).toNanos()));

        assertThat(json(post("/admin/leaves/2/stall", "{\"stall_ms\": 0}"), 200).get("result").asText()).isEqualTo("cleared");
        assertThat(stallAt(2)).isEmpty();
    }

    @Test
    void refusesBadStallRequestsNamingTheFieldAndChangesNothing() throws Exception {
        assertError(post("/admin/leaves/1/stall", "{\"stall\": 150}"), 400, "bad_request",
                "unknown field 'stall' (expected one of: stall_ms, every_ms, duration_ms)");
        assertError(post("/admin/leaves/1/stall", "{\"every_ms\": 1000}"), 400, "bad_request",
                "missing field 'stall_ms' (expected: milliseconds, or 0 to clear)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 150}"), 400, "bad_request",
                "missing field 'every_ms' (expected: milliseconds from the start of one stall to the next, more than stall_ms)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 150, \"every_ms\": 150}"), 400, "bad_request",
                "every_ms: 150.0 (expected: more than stall_ms 150.0, at most 3600000)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 150, \"every_ms\": 3600001}"), 400, "bad_request",
                "every_ms: 3600001.0 (expected: more than stall_ms 150.0, at most 3600000)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 60001, \"every_ms\": 120000}"), 400, "bad_request",
                "stall_ms: 60001.0 (expected: 0..60000)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": -1, \"every_ms\": 1000}"), 400, "bad_request",
                "stall_ms: -1.0 (expected: 0..60000)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 0}"), 400,
                "bad_request", "duration_ms: 0 (expected: 1..3600000)");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": \"150ms\", \"every_ms\": 1000}"), 400, "bad_request",
                "field 'stall_ms' must be a number");
        assertError(post("/admin/leaves/1/stall", "{\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 1.5}"), 400,
                "bad_request", "field 'duration_ms' must be an integer");
        assertError(post("/admin/leaves/1/stall", "[150]"), 400, "bad_request", "body must be a JSON object");
        assertError(post("/admin/leaves/1/stall", ""), 400, "bad_request",
                "empty body (expected: a JSON object such as {\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 60000})");
        assertError(post("/admin/leaves/9/stall", "{\"stall_ms\": 150, \"every_ms\": 1000}"), 404, "not_found",
                "leaf 9 (expected: 0..2)");
        HttpResponse<String> get = send(HttpRequest.newBuilder(uri("/admin/leaves/1/stall")).GET());
        assertError(get, 405, "method_not_allowed", "GET /admin/leaves/1/stall (allowed: POST, DELETE)");

        for (int leaf = 0; leaf < LEAVES; leaf++) {
            assertThat(stallAt(leaf)).as("leaf %d", leaf).isEmpty();
        }
    }

    @Test
    void aLeafWithoutFaultInjectionRefusesAStall() throws Exception {
        try (LeafServer plain = LeafServer.start(LeafConfig.defaults(cluster.index().dir()));
             RootServer root = RootServer.start(ClusterConfig.of(cluster.manifest().name(), List.of(plain.address()),
                     cluster.manifest().partitions(), 1), HttpSettings.defaults("127.0.0.1", 0)
                     .withAdminToken(cluster.adminToken()), REQUEST_TIMEOUT,
                     leaf -> CompletableFuture.failedFuture(new UnsupportedOperationException("not here")),
                     ClusterState.randomRootId())) {
            HttpResponse<String> refused = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort()
                    + "/admin/leaves/0/stall")).header("Content-Type", "application/json")
                    .POST(BodyPublishers.ofString("{\"stall_ms\": 150, \"every_ms\": 1000}")));

            assertError(refused, 409, "conflict", "refused: fault injection is disabled on this leaf; start it with --fault-injection");
            Throwable fromJava = root.leafFaults().injectStall(0, InjectedStall.of(Duration.ofMillis(150), Duration.ofSeconds(1),
                    Duration.ofSeconds(10))).handle((applied, failure) -> failure).join();
            assertThat(fromJava).isInstanceOfSatisfying(LeafFaultException.class,
                    e -> assertThat(e.kind()).isEqualTo(LeafFaultException.Kind.REFUSED));
            assertThat(plain.injectedStall()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Optional<InjectedDelay> delayAt(int leaf) {
        return cluster.leaves().get(leaf).injectedDelay();
    }

    private static Optional<InjectedStall> stallAt(int leaf) {
        return cluster.leaves().get(leaf).injectedStall();
    }

    @Test
    void refusesAdminRequestsWithoutTheAdminTokenWith401AndChangesNothing() throws Exception {
        HttpRequest.Builder delay = HttpRequest.newBuilder(uri("/admin/leaves/1/delay"))
                .header("Content-Type", "application/json").POST(BodyPublishers.ofString("{\"delay_ms\": 50}"));
        HttpResponse<String> none = sendWithout(delay);
        assertError(none, 401, "unauthorized", "admin routes need the header 'Authorization: Bearer <admin token>'");
        assertThat(none.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"hedgerow-admin\"");
        HttpResponse<String> wrong = sendWithout(HttpRequest.newBuilder(uri("/admin/leaves/1/delay"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + "x".repeat(32))
                .POST(BodyPublishers.ofString("{\"delay_ms\": 50}")));
        assertError(wrong, 401, "unauthorized", "the admin token does not match");
        assertThat(wrong.body()).doesNotContain(cluster.adminToken());
        assertError(sendWithout(HttpRequest.newBuilder(uri("/admin/leaves/1/delay"))
                .header("Authorization", "Basic " + cluster.adminToken()).DELETE()), 401, "unauthorized", "Bearer scheme");
        assertError(sendWithout(HttpRequest.newBuilder(uri("/admin/cache")).GET()), 401, "unauthorized", "Authorization");
        assertError(sendWithout(HttpRequest.newBuilder(uri("/admin/blocklist")).DELETE()), 401, "unauthorized",
                "Authorization");
        assertThat(cluster.leaves().get(1).injectedDelay()).as("no delay was injected").isEmpty();
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + cluster.httpPort() + path);
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(BodyPublishers.ofString(body)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.header("Authorization", "Bearer " + cluster.adminToken()).timeout(REQUEST_TIMEOUT)
                .build(), BodyHandlers.ofString());
    }

    private static HttpResponse<String> sendWithout(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(REQUEST_TIMEOUT).build(), BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response, int status) throws Exception {
        assertThat(response.statusCode()).as("status of %s: %s", response.uri(), response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        return JSON.readTree(response.body());
    }

    private static void assertError(HttpResponse<String> response, int status, String code, String detail) throws Exception {
        JsonNode body = json(response, status);
        List<String> fields = new ArrayList<>();
        body.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).as(response.body()).containsExactly("error", "detail");
        assertThat(body.get("error").asText()).isEqualTo(code);
        assertThat(body.get("detail").asText()).contains(detail);
    }
}
