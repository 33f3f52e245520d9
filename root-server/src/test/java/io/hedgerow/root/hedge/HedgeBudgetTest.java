package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HedgeBudgetTest {
    private final ManualTicker ticker = new ManualTicker();

    /** 5% of primaries over 10 s, no reserve. */
    private final HedgeSettings ratioOnly = HedgeSettings.defaults().withBudgetRatio(0.05).withBudgetMinPerSecond(0);

    private static void primaries(HedgeBudget budget, int count) {
        for (int i = 0; i < count; i++) {
            budget.primarySent();
        }
    }

    private static int takeAll(HedgeBudget budget) {
        int taken = 0;
        while (budget.tryBackup()) {
            taken++;
        }
        return taken;
    }

    @Test
    void refusesBackupsPastTheRatioOfPrimaries() {
        HedgeBudget budget = new HedgeBudget(ratioOnly, ticker);
        assertThat(budget.tryBackup()).isFalse(); // nothing sent, nothing to fund a backup
        assertThat(budget.refusals()).isEqualTo(1);

        primaries(budget, 1_000);
        assertThat(budget.available()).isEqualTo(50);
        assertThat(takeAll(budget)).isEqualTo(50);
        assertThat(budget.refusals()).isEqualTo(2);
        assertThat(budget.tryBackup()).isFalse();
        assertThat(budget.refusals()).isEqualTo(3);
        assertThat(budget.available()).isZero();
        assertThat(budget.primariesInWindow()).isEqualTo(1_000);
        assertThat(budget.backupsInWindow()).isEqualTo(50);

        primaries(budget, 19);
        assertThat(budget.tryBackup()).isFalse(); // 1,019 primaries fund 50.95 backups
        primaries(budget, 1);
        assertThat(budget.tryBackup()).isTrue(); // 1,020 fund 51
        assertThat(budget.tryBackup()).isFalse();
    }

    @Test
    void aReserveAllowsBackupsWithoutPrimaries() {
        HedgeBudget reserveOnly = new HedgeBudget(ratioOnly.withBudgetRatio(0).withBudgetMinPerSecond(10), ticker);
        assertThat(takeAll(reserveOnly)).isEqualTo(100); // 10 a second over 10 s
        assertThat(reserveOnly.refusals()).isEqualTo(1);

        HedgeBudget both = new HedgeBudget(ratioOnly.withBudgetMinPerSecond(1), ticker);
        primaries(both, 200);
        assertThat(takeAll(both)).isEqualTo(10 + 10); // 5% of 200, plus 1 a second over 10 s

        HedgeBudget shortWindow = new HedgeBudget(
                ratioOnly.withBudgetMinPerSecond(3).withBudgetWindow(Duration.ofSeconds(2)), ticker);
        assertThat(takeAll(shortWindow)).isEqualTo(6);
    }

    @Test
    void retriesMayGoPastWhatBackupsSpentByTheFloor() {
        HedgeBudget budget = new HedgeBudget(ratioOnly.withRetryFloorPerSecond(2), ticker);
        primaries(budget, 1_000);
        assertThat(takeAll(budget)).isEqualTo(50); // hedging spent its 5%
        // A leaf crash now: its retries still go, up to 2 a second over the 10 s window.
        for (int i = 0; i < 20; i++) {
            assertThat(budget.tryRetry()).as("retry %d", i).isTrue();
        }
        assertThat(budget.tryRetry()).isFalse();
        assertThat(budget.backupsInWindow()).as("retries are charged like backups").isEqualTo(70);
        // Retries spent what backups would have had: none now.
        assertThat(budget.tryBackup()).isFalse();

        HedgeBudget fresh = new HedgeBudget(ratioOnly.withRetryFloorPerSecond(0), ticker);
        primaries(fresh, 100);
        assertThat(fresh.tryRetry()).isTrue(); // 5% of 100
        for (int i = 0; i < 4; i++) {
            fresh.tryRetry();
        }
        assertThat(fresh.tryBackup()).as("retries count against backups").isFalse();
    }

    @Test
    void aTwinNeverSentGivesItsChargeBack() {
        HedgeBudget budget = new HedgeBudget(ratioOnly, ticker);
        primaries(budget, 20);
        assertThat(budget.tryBackup()).isTrue(); // 5% of 20
        assertThat(budget.tryBackup()).isFalse();
        budget.giveBack();
        assertThat(budget.backupsInWindow()).isZero();
        assertThat(budget.tryBackup()).isTrue();
    }

    @Test
    void noRatioAndNoReserveRefusesEverything() {
        HedgeBudget budget = new HedgeBudget(ratioOnly.withBudgetRatio(0), ticker);
        primaries(budget, 10_000);
        assertThat(budget.tryBackup()).isFalse();
        assertThat(budget.refusals()).isEqualTo(1);
    }

    @Test
    void oldPrimariesStopFundingBackups() {
        HedgeBudget budget = new HedgeBudget(ratioOnly, ticker);
        primaries(budget, 1_000); // bucket [0 s, 1 s)

        ticker.advanceMillis(9_999);
        assertThat(budget.available()).isEqualTo(50);

        ticker.advanceMillis(1); // t = 10 s: the first bucket leaves the window
        assertThat(budget.available()).isZero();
        assertThat(budget.primariesInWindow()).isZero();
        assertThat(budget.tryBackup()).isFalse();
    }

    @Test
    void backupsLeaveTheWindowWithThePrimariesThatFundedThem() {
        HedgeBudget budget = new HedgeBudget(ratioOnly, ticker);
        primaries(budget, 1_000);
        assertThat(takeAll(budget)).isEqualTo(50);

        ticker.advanceMillis(5_000);
        primaries(budget, 1_000);
        assertThat(budget.available()).isEqualTo(50); // 2,000 primaries fund 100, 50 taken

        ticker.advanceMillis(5_000); // t = 10 s: the first 1,000 and their 50 backups are gone
        assertThat(budget.primariesInWindow()).isEqualTo(1_000);
        assertThat(budget.backupsInWindow()).isZero();
        assertThat(takeAll(budget)).isEqualTo(50);

        ticker.advance(Duration.ofHours(1)); // a long quiet spell empties the whole ring
        assertThat(budget.primariesInWindow()).isZero();
        assertThat(budget.backupsInWindow()).isZero();
        assertThat(budget.refusals()).isEqualTo(2);
    }

    @Test
    void matchesAModelOfItsWindowOverARandomScript() {
        long seed = new Random().nextLong();
        System.out.println("HedgeBudgetTest.matchesAModelOfItsWindowOverARandomScript seed: " + seed);
        Random random = new Random(seed);
        HedgeBudget budget = new HedgeBudget(ratioOnly.withBudgetMinPerSecond(2), ticker);
        // The model: what each 1 s bucket holds, by bucket number since t = 0.
        long[] primariesByBucket = new long[200];
        long[] backupsByBucket = new long[200];
        long nowMillis = 0;
        while (nowMillis < 190_000) {
            int bucket = (int) (nowMillis / 1_000);
            int from = Math.max(0, bucket - 9);
            long primaries = 0;
            long backups = 0;
            for (int b = from; b <= bucket; b++) {
                primaries += primariesByBucket[b];
                backups += backupsByBucket[b];
            }
            boolean expected = backups + 1 <= 0.05 * primaries + 20;
            int op = random.nextInt(10);
            if (op < 7) {
                budget.primarySent();
                primariesByBucket[bucket]++;
            } else if (op < 9) {
                assertThat(budget.tryBackup()).as("seed %d, t = %d ms", seed, nowMillis).isEqualTo(expected);
                if (expected) {
                    backupsByBucket[bucket]++;
                }
            } else {
                long step = random.nextInt(20) == 0 ? random.nextInt(12_000) : random.nextInt(50);
                ticker.advanceMillis(step);
                nowMillis += step;
            }
        }
    }

    @Test
    void concurrentCallersOvershootByLessThanTheirNumber() throws InterruptedException {
        long seed = new Random().nextLong();
        System.out.println("HedgeBudgetTest.concurrentCallersOvershootByLessThanTheirNumber seed: " + seed);
        int threads = 4;
        int operationsPerThread = 50_000;
        HedgeBudget budget = new HedgeBudget(ratioOnly.withBudgetMinPerSecond(1), ticker);
        AtomicLong granted = new AtomicLong();
        AtomicLong attempts = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed + t);
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < operationsPerThread; i++) {
                        // Three backup attempts per ten primaries: far more than 5% asked for, so
                        // the callers keep racing for the last backup the budget allows.
                        if (random.nextInt(13) < 10) {
                            budget.primarySent();
                        } else {
                            attempts.incrementAndGet();
                            if (budget.tryBackup()) {
                                granted.incrementAndGet();
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "budget-" + t);
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(failure.get()).isNull();

        long primaries = budget.primariesInWindow();
        long limit = (long) Math.floor(0.05 * primaries + 10);
        assertThat(primaries + attempts.get()).isEqualTo((long) threads * operationsPerThread);
        assertThat(budget.backupsInWindow()).as("seed %d", seed).isEqualTo(granted.get());
        assertThat(granted.get() + budget.refusals()).isEqualTo(attempts.get());
        assertThat(granted.get()).as("seed %d: granted %d, limit %d", seed, granted.get(), limit)
                .isLessThanOrEqualTo(limit + threads - 1);

        // Whatever the race left unused can still be taken, and not a backup more.
        takeAll(budget);
        assertThat(budget.backupsInWindow()).as("seed %d", seed).isBetween(limit, limit + threads - 1);
    }
}
