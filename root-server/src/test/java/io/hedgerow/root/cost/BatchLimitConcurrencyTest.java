package io.hedgerow.root.cost;

import static io.hedgerow.common.concurrent.Concurrently.awaitQuietly;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.concurrent.Concurrently;
import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The batch limit under several recording threads, as the root's event loops use it: recording and
 * reading never wait (they go on while another thread closes a window), every sample of
 * a window counts, and a window that several threads find ended is closed once.
 */
@Timeout(30)
class BatchLimitConcurrencyTest {
    private static final BatchAdmissionSettings SETTINGS = new BatchAdmissionSettings(8, 1, Duration.ofMillis(100),
            1.5, Duration.ofMillis(2), 10, 20);
    private static final int THREADS = 4;

    private final ManualTicker ticker = new ManualTicker();
    private final BatchLimit limit = new BatchLimit(SETTINGS, ticker);

    @Test
    void recordsAndReadsWhileAnotherThreadClosesAWindow() {
        for (int i = 0; i < 30; i++) {
            limit.recordInteractive(3_000_000);
        }
        ticker.advanceMillis(100); // the window has ended: the next caller would close it
        limit.closingFlag().set(true); // as if another event loop had won the close
        // As an event loop answering: it records and reads the limit as it was, and goes on.
        boolean finished = Concurrently.finishesBefore(() -> limit.closingFlag().set(false), () -> {
            limit.recordInteractive(3_000_000);
            assertThat(limit.limit()).as("the limit as it was while another thread closes").isEqualTo(1);
        });
        assertThat(finished).as("recorded and read while another thread was closing").isTrue();
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
}
