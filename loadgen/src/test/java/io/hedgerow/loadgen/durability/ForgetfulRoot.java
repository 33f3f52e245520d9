package io.hedgerow.loadgen.durability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deliberately broken stand-in for a root's document routes, on a real socket: an in-memory set
 * of ids behind {@code PUT}, {@code DELETE} and {@code GET /documents/{id}} and a {@code /ready}
 * that says ready, which breaks its promise in one of a few ways on purpose, so a test can check
 * that the checker notices.
 */
final class ForgetfulRoot implements AutoCloseable {
    /** How it misbehaves. */
    enum Flaw {
        /** Keeps its word. */
        NONE,
        /** Acknowledges its 5th add, then forgets that document. */
        FORGETS_AN_ACKNOWLEDGED_ADD,
        /** Acknowledges its 2nd delete without deleting. */
        IGNORES_AN_ACKNOWLEDGED_DELETE
    }

    private final HttpServer server;
    private final Flaw flaw;
    private final Set<String> documents = ConcurrentHashMap.newKeySet();
    private final AtomicInteger adds = new AtomicInteger();
    private final AtomicInteger deletes = new AtomicInteger();
    private final Set<String> victims = ConcurrentHashMap.newKeySet();

    ForgetfulRoot(Flaw flaw) throws IOException {
        this.flaw = flaw;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/documents/", this::document);
        server.createContext("/ready", exchange -> answer(exchange, 200, "{\"ready\": true}"));
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    /** The ids it broke its word on. */
    Set<String> victims() {
        return Set.copyOf(victims);
    }

    private void document(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        String id = URLDecoder.decode(exchange.getRequestURI().getRawPath().substring("/documents/".length()),
                StandardCharsets.UTF_8);
        switch (exchange.getRequestMethod()) {
            case "PUT" -> {
                boolean created = documents.add(id);
                if (flaw == Flaw.FORGETS_AN_ACKNOWLEDGED_ADD && adds.incrementAndGet() == 5) {
                    documents.remove(id);
                    victims.add(id);
                }
                answer(exchange, created ? 201 : 200, "{\"id\": \"" + id + "\", \"result\": \"created\"}");
            }
            case "DELETE" -> {
                boolean ignored = flaw == Flaw.IGNORES_AN_ACKNOWLEDGED_DELETE && deletes.incrementAndGet() == 2;
                if (ignored) {
                    victims.add(id);
                }
                boolean deleted = ignored ? documents.contains(id) : documents.remove(id);
                answer(exchange, deleted ? 200 : 404, "{\"id\": \"" + id + "\"}");
            }
            case "GET" -> answer(exchange, documents.contains(id) ? 200 : 404, "{\"id\": \"" + id + "\"}");
            default -> answer(exchange, 405, "{}");
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
