package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Over a real socket: a pre-built POST goes out whole with its JSON headers, as often as it is sent
 * (its body buffer is shared by every send, never consumed), on one keep-alive connection between GETs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpLoadClientPostTest {
    private final Transport transport = Transport.best();
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private HttpServer server;
    private EventLoopGroup group;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type") + " " + new String(body, StandardCharsets.UTF_8));
            // A 400 for a bad body, as the root answers one: the listener must hear it as such.
            int status = new String(body, StandardCharsets.UTF_8).contains("bad") ? 400 : 200;
            byte[] answer = "{\"tainted\":false,\"hits\":[]}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
        group = transport.newGroup(1, "loadgen-test");
    }

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        server.stop(0);
    }

    @Test
    void sendsThePreBuiltBodyWholeEveryTime() throws Exception {
        HttpLoadClient client = new HttpLoadClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                group.next(), transport, 1, Ticker.system());
        LoadRequest post = LoadRequest.postJson("/search", "{\"query\":\"r\u00e9sum\u00e9\",\"aggs\":{\"langs\":{\"terms\":{\"field\":\"lang\"}}}}");
        LoadRequest longer = LoadRequest.postJson("/search", "{\"query\":\"parliament\",\"from\":20}");
        LoadRequest bad = LoadRequest.postJson("/search", "{\"query\":\"bad\"}");

        List<Integer> statuses = new ArrayList<>();
        for (LoadRequest request : List.of(post, longer, post, LoadRequest.get("/search?q=x"), post, bad)) {
            statuses.add(send(client, request));
        }

        String json = "application/json";
        assertThat(List.of(received.take(), received.take(), received.take(), received.take(), received.take(),
                received.take())).containsExactly(
                "POST /search " + json + " " + post.bodyText(),
                "POST /search " + json + " " + longer.bodyText(),
                "POST /search " + json + " " + post.bodyText(),
                "GET /search?q=x null ",
                "POST /search " + json + " " + post.bodyText(),
                "POST /search " + json + " {\"query\":\"bad\"}");
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 400);
        assertThat(post.body().readableBytes()).as("the shared body is not consumed")
                .isEqualTo(post.bodyText().getBytes(StandardCharsets.UTF_8).length);
    }

    private static int send(HttpLoadClient client, LoadRequest request) throws Exception {
        CompletableFuture<Integer> status = new CompletableFuture<>();
        client.loop().execute(() -> {
            boolean sent = client.send(request, System.nanoTime(), new ResponseListener() {
                @Override
                public void completed(long intendedNanos, int code, boolean tainted, double docsFraction, String errorCode) {
                    status.complete(code);
                }

                @Override
                public void failed(long intendedNanos, String reason) {
                    status.completeExceptionally(new AssertionError(reason));
                }
            });
            if (!sent) {
                status.completeExceptionally(new AssertionError("not sent: the one connection was busy"));
            }
        });
        return status.get(30, TimeUnit.SECONDS);
    }
}
