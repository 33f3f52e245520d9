package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The root's HTTP endpoints a fault runner uses: the cluster's leaves ({@code GET /cluster}),
 * a leaf's restart ({@code POST /admin/leaves/{n}/restart}) and its injected faults
 * ({@code /admin/leaves/{n}/delay|stall}). Answers come back as they are; the caller decides what a
 * status means.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (one {@link HttpClient}); the leaf list is read
 * once and kept.
 */
public final class RootAdmin {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A restart waits for a new JVM to listen. */
    private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final URI root;
    /** Null: admin requests go without a token (and a root with admin routes refuses them, 401). */
    private final String adminToken;
    private final HttpClient http = HttpClient.newHttpClient();
    private List<Integer> leaves;

    RootAdmin(URI root) {
        this(root, null);
    }

    /** @param adminToken sent as {@code Authorization: Bearer <token>}; null for none */
    RootAdmin(URI root, String adminToken) {
        this.root = root;
        this.adminToken = adminToken;
    }

    /** The admin of the root of the cluster started from {@code run}, with its admin token ({@link #adminToken}). */
    public static RootAdmin of(URI root, io.hedgerow.root.local.RunDirectory run) {
        try {
            return new RootAdmin(root, adminToken(run.dir()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read the admin token in " + run.dir(), e);
        }
    }

    /**
     * The admin token of the cluster started from {@code runDir}: {@code $HEDGEROW_ADMIN_TOKEN} if set,
     * else the {@code admin-token} file {@code ./hedgerow local} writes there; null when neither exists.
     */
    static String adminToken(java.nio.file.Path runDir) throws IOException {
        String env = System.getenv("HEDGEROW_ADMIN_TOKEN");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        java.nio.file.Path file = runDir.resolve("admin-token");
        return java.nio.file.Files.exists(file) ? java.nio.file.Files.readString(file).trim() : null;
    }

    URI root() {
        return root;
    }

    /** The numbers of the cluster's leaves, as {@code GET /cluster} lists them (read once). */
    public synchronized List<Integer> leaves() throws IOException {
        if (leaves == null) {
            URI cluster = root.resolve("/cluster");
            HttpResponse<String> response = send(HttpRequest.newBuilder(cluster).GET(), TIMEOUT);
            if (response.statusCode() != 200) {
                throw new IOException("cannot list the leaves of the cluster: GET " + cluster + ": HTTP "
                        + response.statusCode() + " " + detail(response));
            }
            JsonNode list = JSON.readTree(response.body()).path("leaves");
            List<Integer> numbers = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                numbers.add(list.get(i).path("leaf").asInt(i));
            }
            if (numbers.isEmpty()) {
                throw new IOException("cannot list the leaves of the cluster: GET " + cluster + " names none");
            }
            leaves = List.copyOf(numbers);
        }
        return leaves;
    }

    /** Asks the root to start the leaf's process again; answers once the new JVM listens. */
    public HttpResponse<String> restart(int leaf) throws IOException {
        return send(HttpRequest.newBuilder(root.resolve("/admin/leaves/" + leaf + "/restart"))
                .POST(HttpRequest.BodyPublishers.noBody()), RESTART_TIMEOUT);
    }

    /** Injects a fault of {@code kind} ({@code delay} or {@code stall}) into the leaf, with this JSON body. */
    HttpResponse<String> inject(int leaf, String kind, String body) throws IOException {
        return send(HttpRequest.newBuilder(injection(leaf, kind)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), TIMEOUT);
    }

    /** Clears the leaf's injected fault of {@code kind} (a no-op when it has none). */
    HttpResponse<String> clear(int leaf, String kind) throws IOException {
        return send(HttpRequest.newBuilder(injection(leaf, kind)).DELETE(), TIMEOUT);
    }

    private URI injection(int leaf, String kind) {
        return root.resolve("/admin/leaves/" + leaf + "/" + kind);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, Duration timeout) throws IOException {
        if (adminToken != null) {
            request.header("Authorization", "Bearer " + adminToken);
        }
        try {
            return http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The {@code detail} of an error body, or the body itself. */
    public static String detail(HttpResponse<String> response) {
        String detail = field(response, "detail");
        return detail.isEmpty() ? response.body() : detail;
    }

    /** A string field of a JSON body; empty when there is none. */
    static String field(HttpResponse<String> response, String name) {
        try {
            return JSON.readTree(response.body()).path(name).asText();
        } catch (IOException e) {
            return "";
        }
    }
}
