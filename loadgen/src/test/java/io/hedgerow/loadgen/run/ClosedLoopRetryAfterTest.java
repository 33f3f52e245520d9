package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.http.HttpLoadClient;
import io.hedgerow.loadgen.report.PhaseResult;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A root that refuses every search: closed-loop clients told to retry after a second wait that
 * second (a few requests in 2.5 s), where clients told nothing try again at once (thousands).
 */
class ClosedLoopRetryAfterTest {
    private static final LoadRequest SEARCH = LoadRequest.get("/search?q=x");
    private final Transport transport = Transport.best();
    private final AtomicInteger requests = new AtomicInteger();
    private HttpServer server;
    private EventLoopGroup group;

    private PhaseResult runAgainstARootThatRefuses(String retryAfter) throws IOException, InterruptedException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            byte[] body = "{\"error\":\"overloaded\"}".getBytes(StandardCharsets.UTF_8);
            if (retryAfter != null) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter);
            }
            exchange.sendResponseHeaders(503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        group = transport.newGroup(1, "loadgen-test");
        HttpLoadClient client = new HttpLoadClient(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                group.next(), transport, 16, Ticker.system());
        PhaseRunner runner = new PhaseRunner(client, Ticker.system(), new PrintStream(new ByteArrayOutputStream()),
                Duration.ofSeconds(10));
        return runner.run(new PhaseSpec("refused", Duration.ofMillis(2500), 0, "closed", 2, true), () -> SEARCH, 1);
    }

    @AfterEach
    void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void aRefusedClientWaitsWhatRetryAfterSays() throws Exception {
        PhaseResult result = runAgainstARootThatRefuses("1");

        // Two clients, each at 0 s, 1 s and 2 s: at most 8, and at least one retry (a slow machine may
        // delay the later ones, never add any); without the wait, hundreds.
        assertThat(requests.get()).isBetween(3, 8);
        assertThat(result.errors()).isEqualTo(requests.get());
    }

    @Test
    void withoutRetryAfterARefusedClientTriesAgainAtOnce() throws Exception {
        runAgainstARootThatRefuses(null);

        assertThat(requests.get()).isGreaterThan(50);
    }
}
