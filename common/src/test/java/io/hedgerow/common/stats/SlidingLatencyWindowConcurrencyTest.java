package io.hedgerow.common.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.concurrent.Concurrently;
import io.hedgerow.common.time.StallingTicker;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Recording into a window never waits for another thread: a record that finds a bucket ended while
 * a reader holds the window's lock (here, stalled in its clock read under that lock) records and
 * goes on, and its value still counts.
 */
@Timeout(30)
class SlidingLatencyWindowConcurrencyTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final StallingTicker ticker = new StallingTicker();
    private final SlidingLatencyWindow window = new SlidingLatencyWindow(ticker, 1000 * MS, 10);

    @Test
    void recordsPastABucketsEndWhileAReaderHoldsTheLock() throws Exception {
        window.record(2 * MS);
        ticker.advanceMillis(1_500); // the first bucket has ended: the next record would rotate
        long now = ticker.nanoTime();
        try (StallingTicker.Stall reader = ticker.stallDuring(() -> window.percentileNanos(50))) {
            // The reader holds the window's lock, stalled in rotateIfDue's clock read.
            assertThat(Concurrently.finishesBefore(reader::resume, () -> window.record(3 * MS, now)))
                    .as("recorded while a reader held the window's lock").isTrue();
        }
        assertThat(window.count()).as("both values count").isEqualTo(2);
        assertThat(window.percentileNanos(100)).isBetween(3 * MS - MS / 10, 3 * MS + MS / 10);
    }
}
