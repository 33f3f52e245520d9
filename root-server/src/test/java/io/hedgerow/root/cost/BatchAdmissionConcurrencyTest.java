package io.hedgerow.root.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.concurrent.Concurrently;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.time.StallingTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Batch admission from several threads, as the root's event loops use it: no lock is shared between
 * leaves (a call for one leaf goes on while another thread holds another leaf's lock), and admits and releases
 * racing on the same leaves lose no place and no waiter.
 */
@Timeout(30)
class BatchAdmissionConcurrencyTest {
    private static final int LEAVES = 2;
    private static final int THREADS = 4;

    private static final BatchAdmissionSettings SETTINGS = new BatchAdmissionSettings(8, 1, Duration.ofSeconds(1),
            1.5, Duration.ofMillis(2), 10, 20);

    private final ManualTicker ticker = new ManualTicker();
    private final BatchAdmission admission = new BatchAdmission(SETTINGS, LEAVES, ticker);

    @Test
    void admitsAndReleasesOneLeafWhileAnotherThreadHoldsAnotherLeafsLock() {
        List<Runnable> handedBack = new ArrayList<>();
        // As an event loop sending and answering batch for leaf 0 while another loop is inside leaf 1's lock.
        boolean finished = Concurrently.finishesWhileHolding(admission.lockOf(1), () -> {
            admission.admit(0, () -> { });
            admission.admit(0, () -> { });
            handedBack.addAll(admission.release(0));
            admission.recordInteractive(1_000_000);
        });
        assertThat(finished).as("admitted and released leaf 0 while leaf 1's lock was held").isTrue();
        assertThat(handedBack).as("the waiter got the freed place").hasSize(1);
        assertThat(admission.inFlight(0)).isEqualTo(1);
        assertThat(admission.waiting(0)).isZero();
    }

    @Test
    void aClockReadStalledInAdmitHoldsNoLeafsLock() throws Exception {
        StallingTicker stalling = new StallingTicker();
        BatchAdmission stalled = new BatchAdmission(SETTINGS, LEAVES, stalling);
        // Reading the limit may close a window (a histogram read and a percentile): never under a leaf's lock.
        try (StallingTicker.Stall admitting = stalling.stallDuring(() -> stalled.admit(1, () -> { }))) {
            boolean finished = Concurrently.finishesBefore(admitting::resume, () -> {
                assertThat(stalled.admit(1, () -> { })).as("leaf 1 has a place").isTrue();
                assertThat(stalled.release(1)).isEmpty();
            });
            assertThat(finished).as("admitted and released leaf 1 while another admit of it read the clock").isTrue();
        }
        assertThat(stalled.inFlight(1)).as("the stalled admit took its place after").isEqualTo(1);
        assertThat(stalled.waiting(1)).isZero();
    }

    @Test
    void racingAdmitsAndReleasesLoseNoPlaceAndNoWaiter() throws Exception {
        int perThread = 2_000;
        AtomicInteger started = new AtomicInteger();
        ConcurrentLinkedQueue<Integer> holding = new ConcurrentLinkedQueue<>(); // leaves of places handed to waiters
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int first = t;
            Thread thread = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    int leaf = (first + i) % LEAVES;
                    if (admission.admit(leaf, () -> {
                        started.incrementAndGet();
                        holding.add(leaf);
                    })) {
                        started.incrementAndGet();
                        holding.add(leaf);
                    }
                    Integer ended = holding.poll(); // some sub-request holding a place is answered
                    if (ended != null) {
                        admission.release(ended).forEach(Runnable::run);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (Integer ended = holding.poll(); ended != null; ended = holding.poll()) {
            admission.release(ended).forEach(Runnable::run);
        }

        assertThat(started.get()).as("every sub-request got its place").isEqualTo(THREADS * perThread);
        for (int leaf = 0; leaf < LEAVES; leaf++) {
            assertThat(admission.inFlight(leaf)).as("leaf %d in flight", leaf).isZero();
            assertThat(admission.waiting(leaf)).as("leaf %d waiting", leaf).isZero();
        }
    }
}
