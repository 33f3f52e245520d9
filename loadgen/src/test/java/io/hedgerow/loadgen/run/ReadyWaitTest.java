package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Waiting for a starting cluster's /ready, against a real HTTP server on loopback. */
class ReadyWaitTest {
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final ReadyWait wait = new ReadyWait(new PrintStream(printed, true, StandardCharsets.UTF_8));
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void returnsOnceReadyAnswers200AndNotBefore() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        URI target = serve(exchange -> {
            int status = asked.incrementAndGet() < 3 ? 503 : 200; // warming twice, then ready
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });

        wait.awaitReady(target, Duration.ofSeconds(30));

        assertThat(asked).hasValue(3);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("/ready answered 200 after");
    }

    @Test
    void givesUpAfterItsPatienceNamingTheLastAnswer() throws Exception {
        URI target = serve(exchange -> {
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });

        assertThatThrownBy(() -> wait.awaitReady(target, Duration.ofMillis(300))).isInstanceOf(IOException.class)
                .hasMessageEndingWith("/ready did not answer 200 within 0.3 s (last: HTTP 503)");
    }

    private URI serve(com.sun.net.httpserver.HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ready", handler);
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }
}
