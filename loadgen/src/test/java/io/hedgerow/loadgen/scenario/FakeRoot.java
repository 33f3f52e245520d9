package io.hedgerow.loadgen.scenario;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A stand-in for a root's HTTP API where no real one offers what is tested yet (the stall admin
 * endpoint, distributions of delays) or where a test brings its own leaves ({@link SleepingLeaves}):
 * it records every admin and cluster request and answers from a script of status and body per
 * "METHOD path", or 200 with a {@code result} when nothing is scripted. {@code GET /cluster} lists
 * {@code leaves} leaves. {@code POST /admin/leaves/{n}/restart} runs the action given to
 * {@link #restartWith}, if any. Searches not scripted are answered with no hits and not recorded,
 * so a load generator can run against it; {@code /metrics} is not found (no counters to report).
 *
 * <p><b>Assumptions and guarantees.</b> The server's own thread answers; tests take the recorded
 * requests from a blocking queue, so they wait for the runner's scheduler thread without sleeping.
 */
final class FakeRoot implements AutoCloseable {
    /** A request the fake received. */
    record Received(String method, String path, String body) {
        @Override
        public String toString() {
            return method + " " + path + (body.isEmpty() ? "" : " " + body);
        }
    }

    private record Answer(int status, String body) {
    }

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final HttpServer server;
    private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    private final Map<String, Answer> script = new ConcurrentHashMap<>();
    private volatile IntFunction<String> restart;

    FakeRoot(int leaves) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        StringBuilder cluster = new StringBuilder("{\"partitions\": 16, \"replicas\": 2, \"leaves\": [");
        for (int i = 0; i < leaves; i++) {
            cluster.append(i == 0 ? "" : ", ").append("{\"leaf\": ").append(i).append(", \"state\": \"up\"}");
        }
        answer("GET /cluster", 200, cluster.append("]}").toString());
        server.createContext("/", this::handle);
        server.start();
    }

    /** From now on, answers "METHOD path" with this status and body. */
    void answer(String request, int status, String body) {
        script.put(request, new Answer(status, body));
    }

    /** From now on, answers "METHOD path" as if nothing were scripted for it. */
    void unscript(String request) {
        script.remove(request);
    }

    /**
     * From now on, a leaf's restart runs {@code action}, which returns the {@code result} of the
     * answer, or throws {@link IllegalStateException} for a 409, as a root whose leaf still runs.
     */
    void restartWith(IntFunction<String> action) {
        restart = action;
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /** The next request received, waiting for it; fails the test when none comes. */
    Received next() throws InterruptedException {
        Received next = received.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        if (next == null) {
            throw new AssertionError("no request within " + PATIENCE);
        }
        return next;
    }

    /** Requests received and not taken yet. */
    int pending() {
        return received.size();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = exchange.getRequestURI().getPath();
        String request = exchange.getRequestMethod() + " " + path;
        Answer answer = script.get(request);
        if (answer == null && path.equals("/search")) {
            send(exchange, new Answer(200, "{\"took_ms\": 0.0, \"tainted\": false, \"hits\": []}")); // load: not recorded
            return;
        }
        if (answer == null && path.equals("/metrics")) {
            send(exchange, new Answer(404, "{\"error\": \"not_found\"}"));
            return;
        }
        if (answer == null) {
            answer = restart != null && request.matches("POST /admin/leaves/\\d+/restart")
                    ? restart(Integer.parseInt(path.split("/")[3]))
                    : new Answer(200, "{\"result\": \"ok\"}");
        }
        // Recorded before answering: once the sender has its answer, the request is in the queue.
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(), body));
        send(exchange, answer);
    }

    private Answer restart(int leaf) {
        try {
            return new Answer(200, "{\"leaf\": " + leaf + ", \"result\": \"" + restart.apply(leaf) + "\"}");
        } catch (IllegalStateException e) {
            return new Answer(409, "{\"error\": \"conflict\", \"detail\": \"" + e.getMessage() + "\"}");
        }
    }

    private static void send(HttpExchange exchange, Answer answer) throws IOException {
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
