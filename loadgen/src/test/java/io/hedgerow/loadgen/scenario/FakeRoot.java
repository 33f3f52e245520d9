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

/**
 * A stand-in for a root's HTTP API where no real one offers what is tested yet (the stall admin
 * endpoint, distributions of delays): it records every request and answers from a script of
 * status and body per "METHOD path", or 200 with a {@code result} when nothing is scripted.
 * {@code GET /cluster} lists {@code leaves} leaves.
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
        String request = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        Answer answer = script.getOrDefault(request, new Answer(200, "{\"result\": \"ok\"}"));
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        // Recorded before answering: once the sender has its answer, the request is in the queue.
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(), body));
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
