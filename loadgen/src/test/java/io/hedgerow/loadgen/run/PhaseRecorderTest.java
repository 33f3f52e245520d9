package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import org.junit.jupiter.api.Test;

/** What a phase recorder counts of taint and coverage. */
class PhaseRecorderTest {
    private final ManualTicker ticker = new ManualTicker();
    private final PhaseRecorder recorder = new PhaseRecorder(ticker);

    @Test
    void averagesTheCoverageOfTaintedAnswersOnly() {
        recorder.completed(ticker.nanoTime(), 200, true, 0.9);
        recorder.completed(ticker.nanoTime(), 200, true, 0.8);
        recorder.completed(ticker.nanoTime(), 200, false, Double.NaN);
        recorder.completed(ticker.nanoTime(), 200, true, Double.NaN); // tainted, coverage not said
        recorder.completed(ticker.nanoTime(), 503, true, 0.1); // an error, not a tainted answer

        assertThat(recorder.completed()).isEqualTo(5);
        assertThat(recorder.tainted()).isEqualTo(3);
        assertThat(recorder.errors()).isEqualTo(1);
        assertThat(recorder.taintedCoverage()).isCloseTo(0.85, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void hasNoTaintedCoverageWhenNothingWasTainted() {
        recorder.completed(ticker.nanoTime(), 200, false, Double.NaN);
        assertThat(recorder.taintedCoverage()).isNull();
    }
}
