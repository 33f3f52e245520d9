package io.hedgerow.common.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Recording into a window never waits for another thread: a record that finds a bucket ended while
 * the window is held elsewhere (a reader merging, a rotation) records and goes on, and its value
 * still counts.
 */
@Timeout(20)
class SlidingLatencyWindowConcurrencyTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualTicker ticker = new ManualTicker();
    private final SlidingLatencyWindow window = new SlidingLatencyWindow(ticker, 1000 * MS, 10);

    @Test
    void recordsPastABucketsEndWhileAnotherThreadHoldsTheWindow() throws Exception {
        window.record(2 * MS);
        ticker.advanceMillis(1_500); // the first bucket has ended: the next record would rotate
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (window) {
                held.countDown();
                awaitQuietly(release);
            }
        });
        holder.start();
        held.await();
        CountDownLatch recorded = new CountDownLatch(1);
        Thread loop = new Thread(() -> { // as an event loop recording an answer
            window.record(3 * MS);
            recorded.countDown();
        });
        loop.start();
        try {
            // A deadline, not a timing claim: a record that waits for the window never gets there while held.
            assertThat(recorded.await(10, TimeUnit.SECONDS)).as("recorded while the window was held").isTrue();
        } finally {
            release.countDown();
            holder.join();
            loop.join();
        }
        assertThat(window.count()).as("both values count").isEqualTo(2);
        assertThat(window.percentileNanos(100)).isBetween(3 * MS - MS / 10, 3 * MS + MS / 10);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
