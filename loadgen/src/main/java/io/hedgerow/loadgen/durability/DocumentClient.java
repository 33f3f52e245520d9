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
 * token; for a delete, 404: there was nothing to delete), and a connection refused (the request was
 * never sent). A 503 promises only that the write was not
 * <i>acknowledged</i> (docs/http-api.md): a primary may have logged it before its replicas failed,
 * so it is {@link Type#INFO}, like a timeout, a lost connection or a 5xx.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (one {@link HttpClient}); each call blocks its
 * caller for at most the request timeout.
 */
public final class DocumentClient {
    private final URI root;
    private final String writeToken;
    private final Duration timeout;
    private final HttpClient http;

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
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** The outcome of one write, with the status and reason it came from. */
    public record Answer(Type type, String detail) {
    }

    /** What a read by id found. */
    public enum Presence {
        PRESENT, ABSENT, UNREADABLE
    }

    public Answer add(String id, String body) {
        return write(HttpRequest.newBuilder(document(id)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)), false);
    }

    public Answer delete(String id) {
        return write(HttpRequest.newBuilder(document(id)).DELETE(), true);
    }

    /** Reads the document once: present (200), absent (404), or unreadable (anything else, or no answer). */
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
            return new Answer(Type.FAIL, "connection refused" + (e.getMessage() != null ? ": " + e.getMessage() : ""));
        } catch (IOException e) {
            return new Answer(Type.INFO, e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : ""));
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
        return new Answer(Type.INFO, detail);
    }

    private static String abbreviate(String body) {
        String line = body.strip().replace('\n', ' ');
        return line.length() <= 160 ? line : line.substring(0, 160) + "...";
    }

    private URI document(String id) {
        return root.resolve("/documents/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
    }
}
