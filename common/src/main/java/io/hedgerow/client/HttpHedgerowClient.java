package io.hedgerow.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.HedgerowClient;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link HedgerowClient} that talks to a Hedgerow root over its HTTP API: searches with
 * {@code POST /search}, and writes, reads and deletes documents under {@code /documents}. Results,
 * coverage, traces and errors are those the embedded client gives, read back from the root's JSON;
 * a refused search fails with the same {@link SearchException} kind and the root's own message.
 *
 * <pre>{@code
 * try (HttpHedgerowClient client = HttpHedgerowClient.builder(URI.create("http://127.0.0.1:8080"))
 *         .writeToken(System.getenv("HEDGEROW_WRITE_TOKEN"))
 *         .build()) {
 *     SearchResult result = client.search(SearchRequest.builder("\"human rights\"").k(5).build()).join();
 * }
 * }</pre>
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; no call blocks (each returns a future, but
 * {@link #search(String)}, which waits as the interface says). Connections are kept alive and
 * reused by the underlying {@link HttpClient}, HTTP/1.1, as the root speaks it. A {@code 503} with
 * {@code Retry-After} (the root's admission control refusing a search, or a write's partition
 * busy) is sent again after the wait the root names, as {@link RetryPolicy} allows, on a timer
 * rather than a waiting thread; when the attempts run out the caller gets the root's refusal with
 * the count. A bulk write is never retried as a whole: its lines' outcomes say which to resend.
 */
public final class HttpHedgerowClient implements HedgerowClient, AutoCloseable {
    private static final String JSON_TYPE = "application/json";
    /** Beyond a search's own timeout: the root's merge, fetch and the answer's way back. */
    private static final Duration SEARCH_TIMEOUT_SLACK = Duration.ofSeconds(10);

    private final URI base;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final String writeToken;
    private final RetryPolicy retry;
    /** Where retries run once their wait is over; null for the common pool. */
    private final Executor executor;
    private final ObjectMapper json = new ObjectMapper();
    private final DocumentCodec documents = new DocumentCodec(json);

    private HttpHedgerowClient(Builder builder) {
        this.base = builder.base;
        this.requestTimeout = builder.requestTimeout;
        this.writeToken = builder.writeToken;
        this.retry = builder.retry;
        HttpClient.Builder client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.connectTimeout);
        if (builder.executor != null) {
            client.executor(builder.executor);
        }
        this.http = client.build();
        this.executor = builder.executor;
    }

    /** A client of the root at {@code base}, e.g. {@code http://127.0.0.1:8080}. */
    public static Builder builder(URI base) {
        return new Builder(base);
    }

    /** The root this client talks to. */
    public URI base() {
        return base;
    }

    @Override
    public CompletableFuture<SearchResult> search(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        HttpRequest post = request("/search").timeout(searchTimeout(request)).header("Content-Type", JSON_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(SearchRequestEncoder.encode(request).toString()
                        .getBytes(StandardCharsets.UTF_8)))
                .build();
        return send(post).handle((answer, failure) -> {
            if (failure != null) {
                throw new CompletionException(unreachableSearch(failure));
            }
            if (answer.status() != 200) {
                throw new CompletionException(ErrorMapping.toSearchException(error(answer), giveUpNote(answer)));
            }
            try {
                return SearchResultDecoder.decode(answer.body(), request.sort(), request.aggs());
            } catch (RuntimeException e) {
                throw new CompletionException(new SearchException(SearchException.Kind.UNAVAILABLE,
                        "unreadable answer from " + base + "/search: " + e.getMessage()));
            }
        });
    }

    /** The client's wait for a search: its request timeout, or longer when the search itself may take longer. */
    private Duration searchTimeout(SearchRequest request) {
        Duration asked = Duration.ofMillis(request.timeoutMillis()).plus(SEARCH_TIMEOUT_SLACK);
        return request.timeoutMillis() > 0 && asked.compareTo(requestTimeout) > 0 ? asked : requestTimeout;
    }

    /** Adds or replaces a document ({@code PUT /documents/{id}}). */
    public CompletableFuture<DocumentResponse> put(Document document) {
        return put(document, WriteOptions.NONE);
    }

    /** Adds or replaces a document, under {@code options}. */
    public CompletableFuture<DocumentResponse> put(Document document, WriteOptions options) {
        HttpRequest put = write(documentPath(document.id(), options)).header("Content-Type", JSON_TYPE)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(documents.fields(document.fields()))).build();
        return document(put);
    }

    /** Deletes a document ({@code DELETE /documents/{id}}). */
    public CompletableFuture<DocumentResponse> delete(String id) {
        return delete(id, WriteOptions.NONE);
    }

    public CompletableFuture<DocumentResponse> delete(String id, WriteOptions options) {
        return document(write(documentPath(id, options)).DELETE().build());
    }

    /** Reads a document as stored now, whether or not searches see it yet ({@code GET /documents/{id}}). */
    public CompletableFuture<DocumentResponse> get(String id) {
        return get(id, null);
    }

    /** Reads a document of an index with a routing key, by its id and routing value. */
    public CompletableFuture<DocumentResponse> get(String id, String routing) {
        return document(request(documentPath(id, new WriteOptions(0, false, routing))).GET().build());
    }

    /**
     * Adds or replaces many documents in one request ({@code POST /documents}, JSON lines): each
     * document's outcome comes back in its item, and one refused never fails the others.
     */
    public CompletableFuture<BulkResponse> bulk(List<Document> batch, boolean waitForRefresh) {
        HttpRequest post = write("/documents" + (waitForRefresh ? "?refresh=wait_for" : ""))
                .header("Content-Type", JSON_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(documents.lines(List.copyOf(batch)))).build();
        return sendOnce(post).handle((answer, failure) -> {
            if (failure != null) {
                throw new CompletionException(unreachable(failure));
            }
            if (answer.status() != 200) {
                throw new CompletionException(ErrorMapping.toHttpApiException(error(answer), ""));
            }
            return DocumentCodec.bulk(answer.body());
        });
    }

    /** Closes the connections; calls under way may fail. */
    @Override
    public void close() {
        http.shutdownNow();
    }

    private CompletableFuture<DocumentResponse> document(HttpRequest request) {
        return send(request).handle((answer, failure) -> {
            if (failure != null) {
                throw new CompletionException(unreachable(failure));
            }
            if (DocumentCodec.isDocument(answer.body())) {
                return DocumentCodec.document(answer.body());
            }
            throw new CompletionException(ErrorMapping.toHttpApiException(error(answer), giveUpNote(answer)));
        });
    }

    private static String documentPath(String id, WriteOptions options) {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty() || id.contains("/")) {
            throw new IllegalArgumentException("id: '" + id + "' (expected: a non-empty id without '/')");
        }
        List<String> parameters = new ArrayList<>();
        if (options.ifVersion() > 0) {
            parameters.add("if_version=" + options.ifVersion());
        }
        if (options.waitForRefresh()) {
            parameters.add("refresh=wait_for");
        }
        if (options.routing() != null) {
            parameters.add("routing=" + encode(options.routing()));
        }
        return "/documents/" + encode(id) + (parameters.isEmpty() ? "" : "?" + String.join("&", parameters));
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(requestTimeout)
                .header("Accept", JSON_TYPE);
    }

    private HttpRequest.Builder write(String pathAndQuery) {
        HttpRequest.Builder builder = request(pathAndQuery);
        if (writeToken != null) {
            builder.header("Authorization", "Bearer " + writeToken);
        }
        return builder;
    }

    /** One answer: its status, body, the attempts it took and the {@code Retry-After} it came with. */
    private record Answer(int status, JsonNode body, String rawBody, int attempts, String retryAfter) {
    }

    private CompletableFuture<Answer> send(HttpRequest request) {
        return attempt(request, 1, retry);
    }

    private CompletableFuture<Answer> sendOnce(HttpRequest request) {
        return attempt(request, 1, RetryPolicy.never());
    }

    private CompletableFuture<Answer> attempt(HttpRequest request, int attempt, RetryPolicy policy) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .thenCompose(response -> {
                    String retryAfter = response.headers().firstValue("Retry-After").orElse(null);
                    long delayNanos = policy.retryDelayNanos(attempt, response.statusCode(), retryAfter);
                    if (delayNanos < 0) {
                        return CompletableFuture.completedFuture(new Answer(response.statusCode(),
                                parse(response.body()), response.body(), attempt, retryAfter));
                    }
                    // A timer, not a sleeping thread: the next attempt is scheduled after the root's wait.
                    Executor later = executor == null
                            ? CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS)
                            : CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, executor);
                    return CompletableFuture.supplyAsync(() -> request, later)
                            .thenCompose(same -> attempt(same, attempt + 1, policy));
                });
    }

    private JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return json.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static ErrorMapping.ApiError error(Answer answer) {
        return ErrorMapping.read(answer.status(), answer.body(), answer.rawBody());
    }

    /** Why a 503 with {@code Retry-After} was not tried again, for the message. */
    private String giveUpNote(Answer answer) {
        if (answer.status() != 503 || answer.retryAfter() == null) {
            return "";
        }
        if (answer.attempts() >= retry.maxAttempts()) {
            return " (gave up after " + answer.attempts() + " attempt" + (answer.attempts() == 1 ? "" : "s")
                    + "; the root said Retry-After: " + answer.retryAfter() + ")";
        }
        return " (not retried: the root said Retry-After: " + answer.retryAfter() + ", longer than this client waits, "
                + Duration.ofNanos(retry.maxWaitNanos()) + ")";
    }

    private SearchException unreachableSearch(Throwable failure) {
        Throwable cause = unwrap(failure);
        return new SearchException(cause instanceof HttpTimeoutException ? SearchException.Kind.TIMED_OUT
                : SearchException.Kind.UNAVAILABLE, describe(cause));
    }

    private HttpApiException unreachable(Throwable failure) {
        Throwable cause = unwrap(failure);
        return new HttpApiException(0, cause instanceof HttpTimeoutException ? "timed_out" : "unreachable", describe(cause));
    }

    private String describe(Throwable cause) {
        return cause instanceof HttpTimeoutException
                ? "no answer from " + base + " within " + requestTimeout + " (the client's request timeout)"
                : "cannot reach " + base + ": " + cause;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** Settings of a client; every one has a default but the root's address. */
    public static final class Builder {
        private final URI base;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private String writeToken;
        private RetryPolicy retry = RetryPolicy.defaults();
        private Executor executor;

        private Builder(URI base) {
            Objects.requireNonNull(base, "base");
            if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
                throw new IllegalArgumentException("base: " + base + " (expected: http://host:port or https://host:port)");
            }
            String text = base.toString();
            this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        }

        /** How long opening a connection may take (default 5 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connectTimeout", timeout);
            return this;
        }

        /**
         * How long one request may wait for its answer (default 30 s); a search's own
         * {@code timeoutMillis} bounds the root's wait, this bounds the client's (a search whose
         * timeout is longer gets that plus 10 s).
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive("requestTimeout", timeout);
            return this;
        }

        /** The token the root requires of writes ({@code --write-token}); null when it has none. */
        public Builder writeToken(String token) {
            this.writeToken = token;
            return this;
        }

        /** When a 503 with {@code Retry-After} is sent again (default: {@link RetryPolicy#defaults()}). */
        public Builder retry(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The executor the HTTP client completes its futures on and retries run on once their wait
         * is over (default: the HTTP client's own, and the common pool for retries).
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public HttpHedgerowClient build() {
            return new HttpHedgerowClient(this);
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
            }
            return value;
        }
    }

}
