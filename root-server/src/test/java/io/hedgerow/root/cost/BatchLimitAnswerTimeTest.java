package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An interactive answer's sample is recorded at the answer's own time (the connection's clock read)
 * rather than at a clock read of the limit's: scripted across window ends, the limit sees the same
 * samples in the same windows and decides the same.
 */
@Timeout(10)
class BatchLimitAnswerTimeTest {
    private static final long SEED = 1129L;
    private static final BatchAdmissionSettings SETTINGS = new BatchAdmissionSettings(8, 1, Duration.ofMillis(100),
            1.5, Duration.ofMillis(2), 10, 20);

    @Test
    void samplesAtTheAnswersTimeLandInTheSameWindowsAsBefore() {
        ManualTicker ticker = new ManualTicker();
        BatchLimit readsClock = new BatchLimit(SETTINGS, ticker);
        BatchLimit takesTime = new BatchLimit(SETTINGS, ticker);
        SplittableRandom random = new SplittableRandom(SEED);

        for (int step = 0; step < 5_000; step++) {
            long roundTripNanos = 200_000 + random.nextLong(random.nextInt(10) == 0 ? 30_000_000 : 3_000_000);
            readsClock.recordInteractive(roundTripNanos);
            takesTime.recordInteractive(roundTripNanos, ticker.nanoTime());
            ticker.advance(Duration.ofNanos(random.nextLong(2_000_000))); // ~1 ms apart: ~100 a window
            if (step % 97 == 0) {
                assertThat(takesTime.limit()).as("step %d (seed %d)", step, SEED).isEqualTo(readsClock.limit());
                assertThat(takesTime.lastP99Nanos()).isEqualTo(readsClock.lastP99Nanos());
                assertThat(takesTime.baselineNanos()).isEqualTo(readsClock.baselineNanos());
            }
        }
        assertThat(readsClock.baselineNanos()).as("windows closed with samples").isPositive();
    }

    @Test
    void anAnswerTimedBeforeAWindowClosedByAnotherLoopCountsInTheCurrentWindow() {
        ManualTicker ticker = new ManualTicker();
        BatchLimit limit = new BatchLimit(SETTINGS, ticker);
        long before = ticker.nanoTime();
        ticker.advanceMillis(150);
        assertThat(limit.limit()).as("the first window closed, too few samples: raised").isEqualTo(2);

        for (int i = 0; i < 20; i++) {
            limit.recordInteractive(30_000_000, before); // read before the close, recorded after it
        }
        ticker.advanceMillis(100);
        assertThat(limit.lastP99Nanos()).as("the late samples made the second window's p99").isEqualTo(30_000_000);
    }
}
