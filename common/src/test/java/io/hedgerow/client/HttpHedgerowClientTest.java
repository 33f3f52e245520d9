package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.hedgerow.api.CacheStatus;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client against a scripted server on loopback: {@code Retry-After} honoured within its
 * policy, refusals mapped to the embedded client's exceptions with the root's words, requests
 * encoded as the root's parser reads them. (Against a real root: {@code RemoteClientContractTest}
 * and {@code OpenApiDocumentTest} in root-server.)
 */
@Timeout(60)
class HttpHedgerowClientTest {
    private static final String RESULT = """
            {"took_ms":1.5,"total_hits":{"value":1,"relation":"eq"},"tainted":false,"cache":"miss",
             "coverage":{"partitions_total":2,"partitions_answered":2,"docs_fraction":1.0},
             "hits":[{"id":"d-1","score":1.25,"partition":1,"fields":{"title":"alpha"},"snippet":"<b>alpha</b>"}]}""";
    private static final String OVERLOADED = "{\"error\":\"overloaded\",\"detail\":\"the root is running all it can\"}";

    private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    private HttpServer server;

    /** A server that answers {@code /search} with {@code answers} in turn, the last one from then on. */
    private URI serve(List<Answer> answers) throws IOException {
        AtomicInteger next = new AtomicInteger();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            bodies.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            Answer answer = answers.get(Math.min(next.getAndIncrement(), answers.size() - 1));
            if (answer.retryAfter() != null) {
                exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
            }
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private record Answer(int status, String retryAfter, String body) {
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void retriesA503WithRetryAfterAndReturnsTheResultThatFollows() throws Exception {
        URI base = serve(List.of(new Answer(503, "0", OVERLOADED), new Answer(503, "0", OVERLOADED),
                new Answer(200, null, RESULT)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            SearchResult result = client.search(SearchRequest.of("alpha")).join();

            assertThat(bodies).hasSize(3);
            assertThat(result.hits()).singleElement().satisfies(hit -> {
                assertThat(hit.id()).isEqualTo("d-1");
                assertThat(hit.score()).isEqualTo(1.25f);
                assertThat(hit.fields()).containsExactly(java.util.Map.entry("title", "alpha"));
                assertThat(hit.snippet()).isEqualTo("<b>alpha</b>");
            });
            assertThat(result.tookNanos()).isEqualTo(1_500_000);
            assertThat(result.cache()).isEqualTo(CacheStatus.MISS);
            assertThat(result.tainted()).isFalse();
        }
    }

    @Test
    void givesUpAfterItsAttemptsWithTheRootsMessageAndTheCount() throws Exception {
        URI base = serve(List.of(new Answer(503, "0", OVERLOADED)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).retry(RetryPolicy.of(3, Duration.ofSeconds(1)))
                .build()) {
            assertThatThrownBy(() -> client.search(SearchRequest.of("alpha")).join())
                    .isInstanceOf(CompletionException.class).cause().isInstanceOf(SearchException.class)
                    .hasMessage("the root is running all it can (gave up after 3 attempts; the root said Retry-After: 0)")
                    .satisfies(e -> assertThat(((SearchException) e).kind()).isEqualTo(SearchException.Kind.UNAVAILABLE));
            assertThat(bodies).hasSize(3);
        }
    }

    @Test
    void neitherRetriesA503WithoutRetryAfterNorWaitsLongerThanItsMaximum() throws Exception {
        URI base = serve(List.of(new Answer(503, null, "{\"error\":\"unavailable\",\"detail\":\"no replica of partition 3\"}"),
                new Answer(503, "120", OVERLOADED)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            assertThatThrownBy(() -> client.search(SearchRequest.of("alpha")).join()).cause()
                    .hasMessage("no replica of partition 3");
            assertThatThrownBy(() -> client.search(SearchRequest.of("alpha")).join()).cause()
                    .hasMessageStartingWith("the root is running all it can (not retried: the root said Retry-After: 120");
            assertThat(bodies).hasSize(2);
        }
    }

    @Test
    void mapsTheRootsErrorCodesToTheEmbeddedClientsKinds() throws Exception {
        URI base = serve(List.of(
                new Answer(400, null, "{\"error\":\"bad_query\",\"detail\":\"cannot parse 'title:('\"}"),
                new Answer(504, null, "{\"error\":\"timed_out\",\"detail\":\"no partition answered in 5 ms\"}"),
                new Answer(503, null, "{\"error\":\"blocklisted\",\"detail\":\"blocked\"}"),
                new Answer(503, null, "{\"error\":\"dangerous_query\",\"detail\":\"crashed its canary\"}"),
                new Answer(503, null, "{\"error\":\"shutting_down\",\"detail\":\"stopping\"}"),
                new Answer(500, null, "not json")));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            List<SearchException.Kind> kinds = new java.util.ArrayList<>();
            List<String> messages = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                try {
                    client.search(SearchRequest.of("title:(")).join();
                } catch (CompletionException e) {
                    kinds.add(((SearchException) e.getCause()).kind());
                    messages.add(e.getCause().getMessage());
                }
            }
            assertThat(kinds).containsExactly(SearchException.Kind.BAD_QUERY, SearchException.Kind.TIMED_OUT,
                    SearchException.Kind.BLOCKLISTED, SearchException.Kind.DANGEROUS, SearchException.Kind.SHUTTING_DOWN,
                    SearchException.Kind.UNAVAILABLE);
            assertThat(messages).startsWith("cannot parse 'title:('", "no partition answered in 5 ms");
            assertThat(messages.get(5)).isEqualTo("HTTP 500: not json");
        }
    }

    @Test
    void theBlockingSearchThrowsTheSearchExceptionItself() throws Exception {
        URI base = serve(List.of(new Answer(400, null, "{\"error\":\"bad_query\",\"detail\":\"bad\"}")));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            assertThatThrownBy(() -> client.search("title:(")).isInstanceOf(SearchException.class).hasMessage("bad");
        }
    }

    @Test
    void sendsTheRequestAsTheRootsParserReadsItLeavingClusterDefaultsOut() throws Exception {
        URI base = serve(List.of(new Answer(200, null, RESULT)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            client.search(SearchRequest.builder("alpha").k(3).routing("de").build()).join();

            assertThat(bodies).singleElement().isEqualTo("POST /search {\"query\":\"alpha\",\"k\":3,\"snippets\":true,"
                    + "\"stored_fields\":true,\"total_hits_threshold\":1000,\"explain\":false,\"priority\":\"interactive\","
                    + "\"cache\":true,\"routing\":\"de\"}");
        }
    }

    @Test
    void sendsAFieldListAndAnEmptyOneButNoneForTheDefault() throws Exception {
        URI base = serve(List.of(new Answer(200, null, RESULT), new Answer(200, null, RESULT)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            client.search(SearchRequest.builder("alpha").fields(List.of("title", "date")).build()).join();
            client.search(SearchRequest.builder("alpha").fields(List.of()).build()).join();

            List<String> sent = List.copyOf(bodies);
            assertThat(sent).hasSize(2);
            assertThat(sent.get(0)).contains("\"stored_fields\":true,\"fields\":[\"title\",\"date\"],");
            assertThat(sent.get(1)).contains("\"fields\":[],");
        }
    }

    @Test
    void sendsAHighlightInElasticsearchsShape() throws Exception {
        URI base = serve(List.of(new Answer(200, null, RESULT)));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            client.search(SearchRequest.builder("alpha").highlight(new io.hedgerow.api.Highlight(
                    java.util.Map.of("body", new io.hedgerow.api.Highlight.Field(0, 100)), "<mark>", "</mark>")).build()).join();

            assertThat(bodies).singleElement().asString().contains("\"highlight\":{\"fields\":{\"body\":"
                    + "{\"number_of_fragments\":0,\"fragment_size\":100}},\"pre_tags\":[\"<mark>\"],\"post_tags\":[\"</mark>\"]}");
        }
    }

    @Test
    void aRootThatCannotBeReachedIsUnavailableNamingItsAddress() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        URI base = URI.create("http://127.0.0.1:" + closedPort);
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).build()) {
            assertThatThrownBy(() -> client.search(SearchRequest.of("alpha")).join()).cause()
                    .isInstanceOf(SearchException.class).hasMessageStartingWith("cannot reach " + base)
                    .satisfies(e -> assertThat(((SearchException) e).kind()).isEqualTo(SearchException.Kind.UNAVAILABLE));
            assertThatThrownBy(() -> client.get("d-1").join()).cause().isInstanceOf(HttpApiException.class)
                    .satisfies(e -> assertThat(((HttpApiException) e).code()).isEqualTo("unreachable"));
        }
    }

    @Test
    void aWriteRefusedAsAWholeIsAnHttpApiExceptionAndADocumentsOutcomeIsAValue() throws Exception {
        URI base = serve(List.of(
                new Answer(401, null, "{\"error\":\"unauthorized\",\"detail\":\"the write token does not match\"}"),
                new Answer(409, null, "{\"id\":\"d-1\",\"result\":\"conflict\",\"status\":409,\"version\":7,"
                        + "\"error\":\"version 7, not 3\"}")));
        try (HttpHedgerowClient client = HttpHedgerowClient.builder(base).writeToken("secret").build()) {
            assertThatThrownBy(() -> client.put(new Document("d-1", java.util.Map.of("title", "x"))).join()).cause()
                    .isInstanceOf(HttpApiException.class).hasMessage("the write token does not match")
                    .satisfies(e -> assertThat(((HttpApiException) e).status()).isEqualTo(401));
            DocumentResponse conflict = client.put(new Document("d-1", java.util.Map.of("title", "x")),
                    WriteOptions.NONE.withIfVersion(3)).join();

            assertThat(conflict.outcome()).isEqualTo(DocumentResponse.Outcome.CONFLICT);
            assertThat(conflict.version()).isEqualTo(7);
            assertThat(conflict.succeeded()).isFalse();
            assertThat(bodies).last().asString().startsWith("PUT /documents/d-1?if_version=3 {\"title\":\"x\"}");
        }
    }
}
