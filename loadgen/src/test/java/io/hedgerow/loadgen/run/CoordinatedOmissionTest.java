package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.http.HttpLoadClient;
import io.hedgerow.loadgen.http.SelfTestResponder;
import io.hedgerow.loadgen.report.PhaseResult;
import io.netty.channel.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Coordinated omission, both ways round. A server that stalls for one second once: an open-loop
 * generator must show the stall in its tail (every request that should have started during it
 * waited), a closed-loop one barely can. And a generator that is itself held up (its sender blocked,
 * as happens when it shares two cores with five server JVMs): every request due while it was held
 * must count the wait for its send, and the phase must say its sends ran late.
 */
class CoordinatedOmissionTest {
    private static final LoadRequest SEARCH = LoadRequest.get("/search?q=x");
    private final Transport transport = Transport.best();
    private SelfTestResponder responder;
    private EventLoopGroup group;
    private ScheduledExecutorService stall;
    private HttpLoadClient client;
    private PhaseRunner runner;

    @BeforeEach
    void start() {
        responder = new SelfTestResponder(transport);
        group = transport.newGroup(1, "loadgen-test");
        stall = Executors.newSingleThreadScheduledExecutor();
        client = new HttpLoadClient(URI.create("http://127.0.0.1:" + responder.port()), group.next(), transport, 512,
                Ticker.system());
        runner = new PhaseRunner(client, Ticker.system(), new PrintStream(new ByteArrayOutputStream()), Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        stall.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        responder.close();
    }

    private PhaseResult runWithOneServerStall(PhaseSpec spec) throws InterruptedException {
        stall.schedule(() -> responder.stallFor(1000), 1, TimeUnit.SECONDS);
        return runner.run(spec, () -> SEARCH, 1);
    }

    @Test
    void openLoopLatencyShowsTheStallInItsTail() throws InterruptedException {
        PhaseResult result = runWithOneServerStall(new PhaseSpec("stall", Duration.ofSeconds(4), 200, "constant", 0, true));

        assertThat(result.count()).as("every scheduled request completed: %s", result).isEqualTo(800);
        assertThat(result.errors()).isZero();
        assertThat(result.dropped()).isZero();
        // About 200 requests were due during the 1 s stall: 25% of the run waited, up to 1 s.
        assertThat(result.percentileMillis(99.9)).isGreaterThanOrEqualTo(900);
        assertThat(result.percentileMillis(90)).as("a tenth of the requests waited at least 400 ms").isGreaterThanOrEqualTo(400);
        assertThat(result.percentileMillis(50)).isLessThan(500);
        assertThat(result.lagMillis(50)).as("the stall is in the answers, not in the sends").isLessThan(100);
    }

    @Test
    void closedLoopSeesTheStallOnlyInAFewRequests() throws InterruptedException {
        PhaseResult result = runWithOneServerStall(new PhaseSpec("stall", Duration.ofSeconds(3), 0, "closed", 1, true));

        // One request waited the whole second; it is one sample out of thousands.
        assertThat(result.maxMillis()).isGreaterThanOrEqualTo(900);
        assertThat(result.count()).isGreaterThan(100);
        assertThat(result.percentileMillis(90)).isLessThan(100);
    }

    /**
     * The sender blocked for 500 ms: the ~100 requests due meanwhile (one every 5 ms) are sent when
     * it wakes. Ordered from the latest due, the j-th waited at least j x 5 ms for its send, so at
     * least 99 - j answers must take at least j x 5 ms, though the server answers at once; taken
     * from the actual send, they would all be fast, and this would fail.
     */
    @Test
    void aLateSendCountsFromItsIntendedStartAndMarksThePhaseInvalid() throws InterruptedException {
        stall.schedule(() -> client.loop().execute(() -> sleep(500)), 1, TimeUnit.SECONDS);

        PhaseResult result = runner.run(new PhaseSpec("held", Duration.ofSeconds(3), 200, "constant", 0, true),
                () -> SEARCH, 1);

        assertThat(result.errors()).isZero();
        assertThat(result.count()).isEqualTo(600);
        Histogram answered = result.latency();
        Histogram lag = result.latencies().lag();
        for (int j = 0; j < 99; j++) {
            long atLeastMicros = Math.max(1, j * 5_000L - 50); // within HdrHistogram's precision
            assertThat(answered.getCountBetweenValues(atLeastMicros, io.hedgerow.loadgen.report.Latencies.HIGHEST_MICROS))
                    .as("answers that took at least %d ms", j * 5).isGreaterThanOrEqualTo(99 - j);
            assertThat(lag.getCountBetweenValues(atLeastMicros, io.hedgerow.loadgen.report.Latencies.HIGHEST_MICROS))
                    .as("sends at least %d ms late", j * 5).isGreaterThanOrEqualTo(99 - j);
        }
        assertThat(result.lagMillis(99)).isGreaterThan(100);
        assertThat(result.lagValid()).isFalse();
        assertThat(result.problems()).anyMatch(problem -> problem.startsWith("invalid: the generator sent late"));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
