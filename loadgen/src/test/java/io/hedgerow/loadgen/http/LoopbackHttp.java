package io.hedgerow.loadgen.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A scripted HTTP server on a real loopback socket (port 0) and the event loop a load client runs
 * on, for the tests of {@link HttpLoadClient} and of what runs on it: each request is answered as
 * the test's responder says, at once or after a delay (a delayed answer is written from a timer
 * thread, so the server goes on answering the others meanwhile).
 *
 * <p><b>Assumptions and guarantees.</b> The responder runs on the server's dispatcher thread, one
 * request at a time; it must not block. {@link #close} stops the server, the timer and the loop.
 */
public final class LoopbackHttp implements AutoCloseable {
    private final Transport transport = Transport.best();
    private final HttpServer server;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "loopback-http-timer");
        thread.setDaemon(true);
        return thread;
    });
    private final EventLoopGroup group = transport.newGroup(1, "loadgen-test");

    /** A request as the server read it: {@code contentType} null when none was sent. */
    public record Request(String method, String uri, String contentType, String body) {
        /** The request URI's query, "" when it has none. */
        public String query() {
            int at = uri.indexOf('?');
            return at < 0 ? "" : uri.substring(at + 1);
        }
    }

    /** An answer: its status, JSON body and headers, written after {@code delay}. */
    public record Reply(int status, String body, Map<String, String> headers, Duration delay) {
        public Reply {
            headers = Map.copyOf(headers);
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay: " + delay + " (expected: >= 0)");
            }
        }

        public static Reply of(int status, String body) {
            return new Reply(status, body, Map.of(), Duration.ZERO);
        }

        public Reply withHeader(String name, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(name, value);
            return new Reply(status, body, more, delay);
        }

        public Reply after(Duration wait) {
            return new Reply(status, body, headers, wait);
        }
    }

    /** What one response told a client's listener. */
    public record Heard(int status, boolean tainted, double docsFraction, String errorCode) {
    }

    private LoopbackHttp(Function<Request, Reply> responder) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Reply reply = responder.apply(new Request(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                    exchange.getRequestHeaders().getFirst("Content-Type"), new String(body, StandardCharsets.UTF_8)));
            if (reply.delay().isZero()) {
                write(exchange, reply);
            } else {
                timer.schedule(() -> write(exchange, reply), reply.delay().toNanos(), TimeUnit.NANOSECONDS);
            }
        });
        server.start();
    }

    /** Starts a server answering every request as {@code responder} says. */
    public static LoopbackHttp serving(Function<Request, Reply> responder) throws IOException {
        return new LoopbackHttp(responder);
    }

    private static void write(HttpExchange exchange, Reply reply) {
        try {
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** A client of this server on the loop, with at most {@code maxConnections} connections. */
    public HttpLoadClient client(int maxConnections) {
        return new HttpLoadClient(uri(), group.next(), transport, maxConnections, Ticker.system());
    }

    /** Sends {@code request} on the client's loop and waits for what its listener hears. */
    public static Heard send(HttpLoadClient client, LoadRequest request) throws Exception {
        CompletableFuture<Heard> heard = new CompletableFuture<>();
        client.loop().execute(() -> {
            boolean sent = client.send(request, System.nanoTime(), new ResponseListener() {
                @Override
                public void completed(long intendedNanos, int status, boolean tainted, double docsFraction,
                        String errorCode) {
                    heard.complete(new Heard(status, tainted, docsFraction, errorCode));
                }

                @Override
                public void failed(long intendedNanos, String reason) {
                    heard.completeExceptionally(new AssertionError(reason));
                }
            });
            if (!sent) {
                heard.completeExceptionally(new AssertionError("not sent: every connection was busy"));
            }
        });
        return heard.get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        server.stop(0);
        timer.shutdownNow();
    }
}
