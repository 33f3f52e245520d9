package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.loadgen.report.Latencies;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a phase recorder keeps of each request: its outcome's latency, its send's lateness, taint and coverage. */
class PhaseRecorderTest {
    private final ManualTicker ticker = new ManualTicker();
    private final PhaseRecorder recorder = new PhaseRecorder(ticker);

    @Test
    void keepsCompleteAnswersTaintedAnswersAndErrorsApart() {
        long intended = ticker.nanoTime();
        ticker.advance(Duration.ofMillis(2));
        recorder.completed(intended, 200, false, Double.NaN, null);
        ticker.advance(Duration.ofMillis(18));
        recorder.completed(intended, 200, true, 0.9, null);
        recorder.completed(intended, 503, false, Double.NaN, "blocklisted");
        recorder.failed(intended, "connection closed by the server");

        Latencies latencies = recorder.finish();
        assertThat(latencies.complete().getTotalCount()).isEqualTo(1);
        assertThat(latencies.complete().getMaxValue()).isBetween(2_000L, 2_002L); // three significant digits
        assertThat(latencies.tainted().getTotalCount()).isEqualTo(1);
        assertThat(latencies.tainted().getMaxValue()).isBetween(20_000L, 20_020L);
        assertThat(latencies.errors().getTotalCount()).as("a 503 that is no refusal and a lost connection").isEqualTo(2);
        assertThat(latencies.refused().getTotalCount()).isZero();
        assertThat(latencies.answered().getTotalCount()).isEqualTo(2);
        assertThat(recorder.completed()).isEqualTo(4);
        assertThat(recorder.errorReasons()).containsEntry("HTTP 503 blocklisted", 1L)
                .containsEntry("connection closed by the server", 1L);
    }

    @Test
    void keepsRefusalsApartFromOtherErrors() {
        long intended = ticker.nanoTime();
        ticker.advance(Duration.ofMillis(1));
        recorder.completed(intended, 503, false, Double.NaN, "overloaded");
        recorder.completed(intended, 503, false, Double.NaN, "shutting_down");
        recorder.retryAfter(1_000_000_000L);
        recorder.completed(intended, 503, false, Double.NaN, null); // another server's shedding
        ticker.advance(Duration.ofMillis(99));
        recorder.completed(intended, 503, false, Double.NaN, "unavailable");
        recorder.completed(intended, 503, false, Double.NaN, null); // no Retry-After: the one before did not carry over
        recorder.completed(intended, 504, false, Double.NaN, "timed_out");
        recorder.failed(intended, "connection closed by the server");

        Latencies latencies = recorder.finish();
        assertThat(latencies.refused().getTotalCount()).isEqualTo(3);
        assertThat(latencies.refused().getMaxValue()).isBetween(1_000L, 1_001L);
        assertThat(latencies.errors().getTotalCount()).isEqualTo(4);
        assertThat(latencies.errors().getMinValue()).isBetween(99_900L, 100_000L); // its bucket's lowest value
        assertThat(recorder.refused()).isEqualTo(3);
        assertThat(recorder.errors()).as("a refusal is a failure").isEqualTo(7);
        assertThat(recorder.completed()).isEqualTo(7);
    }

    @Test
    void recordsHowLateEachRequestWasSent() {
        long intended = ticker.nanoTime();
        ticker.advance(Duration.ofMillis(7));
        recorder.sent(intended, ticker.nanoTime());
        recorder.sent(ticker.nanoTime(), ticker.nanoTime());

        Latencies latencies = recorder.finish();
        assertThat(recorder.sentCount()).isEqualTo(2);
        assertThat(latencies.lag().getTotalCount()).isEqualTo(2);
        assertThat(latencies.lag().getMaxValue()).isBetween(7_000L, 7_007L);
        assertThat(latencies.lag().getMinValue()).as("an on-time send counts as 1 us, the histogram's floor").isEqualTo(1);
    }

    @Test
    void averagesTheCoverageOfTaintedAnswersOnly() {
        recorder.completed(ticker.nanoTime(), 200, true, 0.9, null);
        recorder.completed(ticker.nanoTime(), 200, true, 0.8, null);
        recorder.completed(ticker.nanoTime(), 200, false, Double.NaN, null);
        recorder.completed(ticker.nanoTime(), 200, true, Double.NaN, null); // tainted, coverage not said
        recorder.completed(ticker.nanoTime(), 503, true, 0.1, null); // an error, not a tainted answer

        assertThat(recorder.completed()).isEqualTo(5);
        assertThat(recorder.finish().tainted().getTotalCount()).isEqualTo(3);
        assertThat(recorder.errors()).isEqualTo(1);
        assertThat(recorder.taintedCoverage()).isCloseTo(0.85, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void hasNoTaintedCoverageWhenNothingWasTainted() {
        recorder.completed(ticker.nanoTime(), 200, false, Double.NaN, null);
        assertThat(recorder.taintedCoverage()).isNull();
    }
}
