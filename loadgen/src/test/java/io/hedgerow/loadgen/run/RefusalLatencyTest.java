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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An open-loop phase against a server that refuses some searches at once (503 overloaded with
 * Retry-After, as the root's admission control does, or a code-less 503 with Retry-After), fails
 * others at once (503 unavailable: the search ran) and answers the rest after 1 s (long, so that a
 * refusal stalled by a loaded machine still comes back before every answer): the
 * refusals are counted apart from the other errors, exactly, and their latency is the short one.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RefusalLatencyTest {
    private static final List<LoadRequest> MIX = List.of(LoadRequest.get("/search?q=slow"),
            LoadRequest.get("/search?q=refuse"), LoadRequest.get("/search?q=shed"), LoadRequest.get("/search?q=unavailable"),
            LoadRequest.get("/search?q=refuse"));

    @Test
    void countsRefusalsApartFromOtherErrorsAndTimesThemOnTheirOwn() throws Exception {
        Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
        try (LoopbackHttp http = LoopbackHttp.serving(request -> {
            String kind = request.query().substring("q=".length());
            served.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
            return switch (kind) {
                case "refuse" -> Reply.of(503, "{\"error\":\"overloaded\",\"detail\":\"queue full\"}")
                        .withHeader("Retry-After", "1");
                case "shed" -> Reply.of(503, "busy").withHeader("Retry-After", "1");
                case "unavailable" -> Reply.of(503, "{\"error\":\"unavailable\",\"detail\":\"no replica\"}");
                default -> Reply.of(200, "{\"tainted\":false,\"hits\":[]}").after(Duration.ofSeconds(1));
            };
        })) {
            AtomicInteger next = new AtomicInteger();
            PhaseRunner runner = new PhaseRunner(http.client(256), Ticker.system(),
                    new PrintStream(new ByteArrayOutputStream()), Duration.ofSeconds(20));

            PhaseResult result = runner.run(new PhaseSpec("overloaded", Duration.ofSeconds(1), 100, "constant", 0, true),
                    () -> MIX.get(next.getAndIncrement() % MIX.size()), 1);

            int refusals = served.get("refuse").get() + served.get("shed").get();
            assertThat(result.refused()).as("503 overloaded and code-less 503s with Retry-After").isEqualTo(refusals);
            assertThat(result.otherErrors()).as("503 unavailable: the search ran").isEqualTo(served.get("unavailable").get());
            assertThat(result.errors()).as("a refusal is a failure").isEqualTo(refusals + served.get("unavailable").get());
            assertThat(result.complete()).isEqualTo(served.get("slow").get());
            assertThat(result.count()).isEqualTo(next.get()).isGreaterThanOrEqualTo(50);
            assertThat(result.errorReasons()).containsEntry("HTTP 503 overloaded", (long) served.get("refuse").get())
                    .containsEntry("HTTP 503 unavailable", (long) served.get("unavailable").get());
            assertThat(result.latencies().refused().getMaxValue()).as("every refusal came back before any answer")
                    .isLessThan(result.latencies().complete().getMinValue());
            assertThat(result.refusedMillis(99)).isLessThan(result.percentileMillis(50));
        }
    }
}
