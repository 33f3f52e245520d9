package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batch limit under several recording threads, as the root's event loops use it: recording and
 * reading take no lock (they go on while another thread holds the limit's monitor), every sample of
 * a window counts, and a window that several threads find ended is closed once.
 */
@Timeout(20)
class BatchLimitConcurrencyTest {
    private static final BatchAdmissionSettings SETTINGS = new BatchAdmissionSettings(8, 1, Duration.ofMillis(100),
            1.5, Duration.ofMillis(2), 10, 20);
    private static final int THREADS = 4;

    private final ManualTicker ticker = new ManualTicker();
    private final BatchLimit limit = new BatchLimit(SETTINGS, ticker);

    @Test
    void recordsAndReadsWhileAnotherThreadHoldsItsMonitor() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (limit) {
                held.countDown();
                awaitQuietly(release);
            }
        });
        holder.start();
        held.await();
        CountDownLatch recorded = new CountDownLatch(1);
        Thread loop = new Thread(() -> { // as an event loop answering
            for (int i = 0; i < 30; i++) {
                limit.recordInteractive(3_000_000);
            }
            ticker.advanceMillis(100);
            limit.limit();
            recorded.countDown();
        });
        loop.start();
        try {
            // A deadline, not a timing claim: a lock on the answer path never gets there while held.
            assertThat(recorded.await(10, TimeUnit.SECONDS)).as("recorded and read while the monitor was held").isTrue();
        } finally {
            release.countDown();
            holder.join();
            loop.join();
        }
        assertThat(limit.limit()).as("the window closed with enough samples: raised").isEqualTo(2);
        assertThat(limit.lastP99Nanos()).isEqualTo(3_000_000);
        assertThat(limit.baselineNanos()).isEqualTo(3_000_000);
    }

    @Test
    void everySampleRecordedConcurrentlyCountsInItsWindow() throws Exception {
        for (int i = 0; i < 7; i++) {
            window(100, 1_000_000); // limit 8, best p99 1 ms
        }
        assertThat(limit.limit()).isEqualTo(8);
        // Each thread: 990 fast answers and 11 slow ones. Of 4,004 samples 44 are slow: the 99th
        // percentile (the 3,964th) reads slow only if at most 3 of them were lost.
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < 990; i++) {
                    limit.recordInteractive(1_000_000);
                    if (i % 90 == 0) {
                        limit.recordInteractive(30_000_000);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        ticker.advanceMillis(100);

        assertThat(limit.lastP99Nanos()).isEqualTo(30_000_000);
        assertThat(limit.limit()).as("30 x the best: halved").isEqualTo(4);
    }

    @Test
    void aWindowSeveralThreadsFindEndedClosesOnce() throws Exception {
        CyclicBarrier round = new CyclicBarrier(THREADS + 1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                for (int window = 0; window < 6; window++) {
                    awaitQuietly(round); // the window has ended: all read the limit at once
                    limit.limit();
                    limit.recordInteractive(1_000_000);
                    awaitQuietly(round);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (int window = 1; window <= 6; window++) {
            ticker.advanceMillis(100);
            round.await();
            round.await();
            // Each ended window had too few samples (4): raised by one, however many threads closed it.
            assertThat(limit.limit()).as("after window %d", window).isEqualTo(Math.min(8, 1 + window));
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void window(int answers, long roundTripNanos) {
        for (int i = 0; i < answers; i++) {
            limit.recordInteractive(roundTripNanos);
        }
        ticker.advanceMillis(100);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BrokenBarrierException e) {
            throw new IllegalStateException("barrier broken", e);
        }
    }
}
