package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.http.LoadRequest;
import io.hedgerow.loadgen.http.LoopbackHttp;
import io.hedgerow.loadgen.http.LoopbackHttp.Reply;
import io.hedgerow.loadgen.report.PhaseResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A root that refuses every search: closed-loop clients told to retry after a second wait that
 * second (a few requests in 2.5 s), where clients told nothing try again at once (thousands).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClosedLoopRetryAfterTest {
    private static final LoadRequest SEARCH = LoadRequest.get("/search?q=x");
    private final AtomicInteger requests = new AtomicInteger();
    private LoopbackHttp http;

    private PhaseResult runAgainstARootThatRefuses(String retryAfter) throws Exception {
        http = LoopbackHttp.serving(request -> {
            requests.incrementAndGet();
            Reply refusal = Reply.of(503, "{\"error\":\"overloaded\"}");
            return retryAfter == null ? refusal : refusal.withHeader("Retry-After", retryAfter);
        });
        PhaseRunner runner = new PhaseRunner(http.client(16), Ticker.system(), new PrintStream(new ByteArrayOutputStream()),
                Duration.ofSeconds(10));
        return runner.run(new PhaseSpec("refused", Duration.ofMillis(2500), 0, "closed", 2, true), () -> SEARCH, 1);
    }

    @AfterEach
    void stop() {
        if (http != null) {
            http.close();
        }
    }

    @Test
    void aRefusedClientWaitsWhatRetryAfterSays() throws Exception {
        PhaseResult result = runAgainstARootThatRefuses("1");

        // Two clients, each at 0 s, 1 s and 2 s: at most 8, and at least one retry (a slow machine may
        // delay the later ones, never add any); without the wait, hundreds.
        assertThat(requests.get()).isBetween(3, 8);
        assertThat(result.errors()).isEqualTo(requests.get());
        assertThat(result.refused()).as("every one a refusal").isEqualTo(requests.get());
    }

    @Test
    void withoutRetryAfterARefusedClientTriesAgainAtOnce() throws Exception {
        runAgainstARootThatRefuses(null);

        assertThat(requests.get()).isGreaterThan(50);
    }
}
