package io.hedgerow.loadgen.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.hedgerow.common.net.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Over a real socket: the client hands its listener a tainted answer's coverage, and NaN for a complete one. */
class HttpLoadClientCoverageTest {
    private static final String COMPLETE = "{\"took_ms\":2.1,\"total_hits\":{\"value\":1,\"relation\":\"eq\"},"
            + "\"tainted\":false,\"coverage\":{\"partitions_total\":16,\"partitions_answered\":16,\"docs_fraction\":1.0},"
            + "\"hits\":[]}";

    private final Transport transport = Transport.best();
    private HttpServer server;
    private EventLoopGroup group;

    /** What one response told the listener. */
    private record Heard(int status, boolean tainted, double docsFraction) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String body = exchange.getRequestURI().getQuery().contains("partial") ? CoverageFieldTest.TAINTED : COMPLETE;
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
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
    void passesTheDocsFractionOfTaintedAnswersOnly() throws Exception {
        HttpLoadClient client = new HttpLoadClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                group.next(), transport, 4, io.hedgerow.common.time.Ticker.system());

        Heard tainted = send(client, "/search?q=partial");
        Heard complete = send(client, "/search?q=whole");

        assertThat(tainted).isEqualTo(new Heard(200, true, 0.937512));
        assertThat(complete.tainted()).isFalse();
        assertThat(complete.docsFraction()).as("not read when not tainted").isNaN();
    }

    private static Heard send(HttpLoadClient client, String path) throws Exception {
        CompletableFuture<Heard> heard = new CompletableFuture<>();
        client.loop().execute(() -> client.send(path, System.nanoTime(), new ResponseListener() {
            @Override
            public void completed(long intendedNanos, int status, boolean tainted, double docsFraction, String errorCode) {
                heard.complete(new Heard(status, tainted, docsFraction));
            }

            @Override
            public void failed(long intendedNanos, String reason) {
                heard.completeExceptionally(new AssertionError(reason));
            }
        }));
        return heard.get(30, TimeUnit.SECONDS);
    }
}
