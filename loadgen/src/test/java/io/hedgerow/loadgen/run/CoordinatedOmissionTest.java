package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that stalls for one second once: an open-loop generator must show the stall in its
 * tail (every request that should have started during it waited), a closed-loop one barely can.
 */
class CoordinatedOmissionTest {
    private final Transport transport = Transport.best();
    private SelfTestResponder responder;
    private EventLoopGroup group;
    private ScheduledExecutorService stall;

    @BeforeEach
    void start() {
        responder = new SelfTestResponder(transport);
        group = transport.newGroup(1, "loadgen-test");
        stall = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void stop() {
        stall.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        responder.close();
    }

    private PhaseResult runWithOneStall(PhaseSpec spec) throws InterruptedException {
        HttpLoadClient client = new HttpLoadClient(URI.create("http://127.0.0.1:" + responder.port()), group.next(),
                transport, 512);
        PhaseRunner runner = new PhaseRunner(client, Ticker.system(), new PrintStream(new ByteArrayOutputStream()),
                Duration.ofSeconds(10));
        stall.schedule(() -> responder.stallFor(1000), 1, TimeUnit.SECONDS);
        return runner.run(spec, () -> "/search?q=x", 1);
    }

    @Test
    void openLoopLatencyShowsTheStallInItsTail() throws InterruptedException {
        PhaseResult result = runWithOneStall(new PhaseSpec("stall", Duration.ofSeconds(4), 200, "constant", 0, true));

        assertThat(result.count()).as("every scheduled request completed: %s", result).isEqualTo(800);
        assertThat(result.errors()).isZero();
        assertThat(result.dropped()).isZero();
        // About 200 requests were due during the 1 s stall: 25% of the run waited, up to 1 s.
        assertThat(result.percentileMillis(99.9)).isGreaterThanOrEqualTo(900);
        assertThat(result.percentileMillis(90)).as("a tenth of the requests waited at least 400 ms").isGreaterThanOrEqualTo(400);
        assertThat(result.percentileMillis(50)).isLessThan(500);
    }

    @Test
    void closedLoopSeesTheStallOnlyInAFewRequests() throws InterruptedException {
        PhaseResult result = runWithOneStall(new PhaseSpec("stall", Duration.ofSeconds(3), 0, "closed", 1, true));

        // One request waited the whole second; it is one sample out of thousands.
        assertThat(result.maxMillis()).isGreaterThanOrEqualTo(900);
        assertThat(result.count()).isGreaterThan(100);
        assertThat(result.percentileMillis(90)).isLessThan(100);
    }
}
