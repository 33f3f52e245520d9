package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.common.logging.LogCapture;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request id from end to end over real sockets (a root and two leaves on loopback, real Lucene
 * partitions): the client's {@code X-Request-Id}, or the root's own, comes back in the answer's
 * header and JSON, is named by the root's access log and by the leaves' log lines about the
 * request (their MDC); and the slow-query log writes a slow search with its explain trace. The log
 * lines are captured where they are logged, by a Logback {@code ListAppender} on each logger.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RequestLoggingHttpTest {
    private static final Duration PATIENCE = RootOnLeaves.PATIENCE;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    private static RootOnLeaves fixture;
    private static HttpClient http;

    @BeforeAll
    static void startCluster() throws Exception {
        fixture = RootOnLeaves.start(dataDir, "logging", 33, 1, false);
        http = fixture.http();
    }

    @AfterAll
    static void stopCluster() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @AfterEach
    void close() throws Exception {
        fixture.afterEach();
    }

    @Test
    void aClientsRequestIdIsInTheAnswerTheRootsAccessLogAndTheLeavesLogLines() throws Exception {
        LogCapture access = capture(AccessLog.LOGGER, Level.INFO);
        LogCapture leaves = capture("io.hedgerow.leaf.requests", Level.DEBUG);
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0));

        HttpResponse<String> answer = http.send(search(root, "alpha").header("X-Request-Id", "client-7f3a.42").build(),
                BodyHandlers.ofString());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("x-request-id")).hasValue("client-7f3a.42");
        assertThat(JSON.readTree(answer.body()).get("request_id").asText()).isEqualTo("client-7f3a.42");
        // The access line is written once the answer's last byte is; the leaves log after they answer.
        Await.until(() -> "the access log line, in " + access.messages(), PATIENCE, () -> access.messages().stream()
                .anyMatch(line -> line.startsWith("request_id=client-7f3a.42 ")));
        assertThat(access.messages()).filteredOn(line -> line.startsWith("request_id=client-7f3a.42 ")).singleElement()
                .asString().contains("method=GET", "uri=\"/search?q=alpha&cache=false\"", "status=200", "took_ms=");
        // Four partitions on two leaves: a query answer from each partition and the fetch of the hits.
        Await.until(() -> "the leaves' lines about client-7f3a.42, in " + leaves.events(), PATIENCE,
                () -> taggedWith(leaves, "client-7f3a.42").size() >= 5);
        assertThat(taggedWith(leaves, "client-7f3a.42")).extracting(ILoggingEvent::getFormattedMessage)
                .anyMatch(line -> line.startsWith("SearchTask "))
                .anyMatch(line -> line.startsWith("FetchTask "));
    }

    @Test
    void aRequestWithoutAUsableIdGetsOneFromTheRoot() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0));

        HttpResponse<String> none = http.send(search(root, "bravo").build(), BodyHandlers.ofString());
        // Too long to log as it is (a client's id goes into every line about its request).
        HttpResponse<String> tooLong = http.send(search(root, "bravo").header("X-Request-Id", "x".repeat(129)).build(),
                BodyHandlers.ofString());

        for (HttpResponse<String> answer : List.of(none, tooLong)) {
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            String id = answer.headers().firstValue("x-request-id").orElseThrow();
            assertThat(id).matches("[0-9a-z]+-[0-9a-z]+");
            assertThat(JSON.readTree(answer.body()).get("request_id").asText()).isEqualTo(id);
        }
        assertThat(none.headers().firstValue("x-request-id")).isNotEqualTo(tooLong.headers().firstValue("x-request-id"));
    }

    @Test
    void everyAnswerCarriesItsRequestIdErrorsToo() throws Exception {
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0));

        HttpResponse<String> notFound = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort()
                + "/nowhere")).header("X-Request-Id", "lost-1").build(), BodyHandlers.ofString());

        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(notFound.headers().firstValue("x-request-id")).hasValue("lost-1");
    }

    @Test
    void aSlowSearchIsInTheSlowQueryLogWithItsExplainTraceWhichItsAnswerLeavesOut() throws Exception {
        LogCapture slow = capture(SlowQueryLog.LOGGER, Level.INFO);
        // Every search takes at least a nanosecond: each one is slow.
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withSlowQuery(Duration.ofNanos(1)));

        HttpResponse<String> answer = http.send(search(root, "charlie").header("X-Request-Id", "slow-1").build(),
                BodyHandlers.ofString());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode body = JSON.readTree(answer.body());
        assertThat(body.has("trace")).as("a trace the client did not ask for: %s", body).isFalse();
        assertThat(body.has("leaves")).isFalse();
        // Logged before the answer is written, on the thread that completed the search.
        String line = slow.messages().stream().filter(message -> message.startsWith("request_id=slow-1 "))
                .findFirst().orElseThrow(() -> new AssertionError("no slow-query line for slow-1 in " + slow.messages()));
        assertThat(line).contains("outcome=complete", "query=\"charlie\"", "took_ms=");
        JsonNode detail = JSON.readTree(line.substring(line.indexOf('{')));
        assertThat(detail.get("k").asInt()).isEqualTo(10);
        assertThat(detail.get("coverage").get("partitions_answered").asInt()).isEqualTo(4);
        // At least one copy of each of the four partitions, and the fetch.
        assertThat(detail.get("trace").size()).isGreaterThanOrEqualTo(5);
        assertThat(detail.get("trace").get(0).get("leaf").asText()).isNotEmpty();
        assertThat(detail.get("leaves").size()).isEqualTo(2);
    }

    @Test
    void anExplainedSearchKeepsItsTraceInTheAnswerAndNoSlowQueryLogMeansNoLine() throws Exception {
        LogCapture slow = capture(SlowQueryLog.LOGGER, Level.INFO);
        RootServer root = root(HttpSettings.defaults("127.0.0.1", 0).withSlowQuery(Duration.ZERO));

        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + root.httpPort()
                + "/search?q=delta&cache=false&explain=true")).header("X-Request-Id", "explained-1").build(),
                BodyHandlers.ofString());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(JSON.readTree(answer.body()).get("trace").size()).isGreaterThanOrEqualTo(4);
        assertThat(slow.messages()).noneMatch(message -> message.contains("explained-1"));
    }

    private static List<ILoggingEvent> taggedWith(LogCapture capture, String requestId) {
        return capture.events().stream().filter(event -> requestId.equals(event.getMDCPropertyMap().get("request_id")))
                .toList();
    }

    private static LogCapture capture(String logger, Level level) {
        return fixture.closeAfterTest(LogCapture.of(logger, level));
    }

    private static HttpRequest.Builder search(RootServer root, String query) {
        return RootOnLeaves.request(root, "/search?q=" + query + "&cache=false");
    }

    private static RootServer root(HttpSettings settings) throws Exception {
        return fixture.root(settings);
    }
}
