package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.durability.Op.Type;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The root's document routes as the set workload uses them: {@code PUT} to add, {@code DELETE}
 * to delete, {@code GET} to read, each answer sorted into what it says about the write.
 *
 * <p>What counts as a definite refusal ({@link Type#FAIL}) is narrow on purpose: only a 4xx,
 * which the root gives before anything is written (a bad document, a version conflict, a missing
 * token; for a delete, 404: there was nothing to delete), and a connection that was never made
 * (refused, or its connect timed out: the request was never sent). A 503 promises only that the write was not
 * <i>acknowledged</i> (docs/http-api.md): a primary may have logged it before its replicas failed,
 * so it is {@link Type#INFO}, like a timeout, a lost connection or a 5xx. Each answer also says
 * whether another root may be asked instead ({@link Route}; {@link FailoverClient} does).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (one {@link HttpClient}); each call blocks its
 * caller for at most the request timeout.
 */
public final class DocumentClient implements Documents {
    private final URI root;
    private final String writeToken;
    private final Duration timeout;
    private final HttpClient http;

    /** Connects give up sooner than requests: a root host cut off answers no SYN, and its clients should fail over. */
    private static final Duration CONNECT_PATIENCE = Duration.ofSeconds(3);

    /**
     * @param writeToken sent as {@code Authorization: Bearer <token>} on writes; null for none
     * @param timeout    the longest a request may take before it counts as indeterminate
     */
    public DocumentClient(URI root, String writeToken, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
        this.root = root;
        this.writeToken = writeToken;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout.compareTo(CONNECT_PATIENCE) < 0 ? timeout : CONNECT_PATIENCE)
                .build();
    }

    /**
     * The outcome of one write, with the status and reason it came from.
     *
     * @param route what it means for asking another root instead
     */
    public record Answer(Type type, String detail, Route route) {
        public Answer {
            java.util.Objects.requireNonNull(route, "route");
        }

        /** An answer that ends the write: no other root is asked. */
        public Answer(Type type, String detail) {
            this(type, detail, Route.FINAL);
        }
    }

    /** Whether a write one root did not take may go to another root, and what the first attempt leaves behind. */
    public enum Route {
        /** An answer to keep (OK, a 4xx, a 5xx other than 503). */
        FINAL,
        /** No connection, so nothing was sent: another root's answer is the write's own. */
        NOT_SENT,
        /** Sent, and no answer came (a timeout, a lost connection): it may have been written; ask another root. */
        NO_ANSWER,
        /** 503: the root answered without acknowledging; it may have been logged; ask another root. */
        REFUSED
    }

    /** What a read by id found. */
    public enum Presence {
        PRESENT, ABSENT, UNREADABLE
    }

    @Override
    public Answer add(String id, String body) {
        return write(HttpRequest.newBuilder(document(id)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)), false);
    }

    @Override
    public Answer delete(String id) {
        return write(HttpRequest.newBuilder(document(id)).DELETE(), true);
    }

    /** Reads the document once: present (200), absent (404), or unreadable (anything else, or no answer). */
    @Override
    public Presence read(String id) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(document(id)).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return switch (response.statusCode()) {
                case 200 -> Presence.PRESENT;
                case 404 -> Presence.ABSENT;
                default -> Presence.UNREADABLE;
            };
        } catch (IOException e) {
            return Presence.UNREADABLE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Presence.UNREADABLE;
        }
    }

    private Answer write(HttpRequest.Builder request, boolean delete) {
        if (writeToken != null) {
            request.header("Authorization", "Bearer " + writeToken);
        }
        try {
            HttpResponse<String> response = http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
            return classify(response.statusCode(), response.body(), delete);
        } catch (java.net.ConnectException e) {
            // No connection, so no request: nothing can have been written.
            return new Answer(Type.FAIL, "connection refused" + (e.getMessage() != null ? ": " + e.getMessage() : ""),
                    Route.NOT_SENT);
        } catch (java.net.http.HttpConnectTimeoutException e) {
            // The same: the request is written only once the connection is made.
            return new Answer(Type.FAIL, "connect timed out", Route.NOT_SENT);
        } catch (IOException e) {
            return new Answer(Type.INFO, e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : ""),
                    Route.NO_ANSWER);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(Type.INFO, "interrupted");
        }
    }

    /** What an answer of {@code status} says about a write (see the class comment). */
    static Answer classify(int status, String body, boolean delete) {
        String detail = "HTTP " + status + (body == null || body.isBlank() ? "" : " " + abbreviate(body));
        if (status == 200 || (status == 201 && !delete)) {
            return new Answer(Type.OK, "HTTP " + status);
        }
        if (status >= 400 && status < 500) {
            return new Answer(Type.FAIL, detail);
        }
        return new Answer(Type.INFO, detail, status == 503 ? Route.REFUSED : Route.FINAL);
    }

    private static String abbreviate(String body) {
        String line = body.strip().replace('\n', ' ');
        return line.length() <= 160 ? line : line.substring(0, 160) + "...";
    }

    @Override
    public String toString() {
        return root.toString();
    }

    private URI document(String id) {
        return root.resolve("/documents/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
    }
}
