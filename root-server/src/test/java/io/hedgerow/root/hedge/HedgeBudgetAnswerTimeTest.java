package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fan-out counts its primaries at its event's time rather than at a clock read each: scripted on
 * a manual clock across bucket rotations, the budget allows the same backups as before.
 */
@Timeout(10)
class HedgeBudgetAnswerTimeTest {
    private static final long SEED = 29L;

    @Test
    void primariesCountedAtTheEventsTimeFundTheSameBackups() {
        ManualTicker ticker = new ManualTicker();
        HedgeSettings settings = HedgeSettings.defaults();
        HedgeBudget readsClock = new HedgeBudget(settings, ticker);
        HedgeBudget takesTime = new HedgeBudget(settings, ticker);
        SplittableRandom random = new SplittableRandom(SEED);

        for (int event = 0; event < 3_000; event++) {
            int primaries = random.nextInt(17);
            for (int i = 0; i < primaries; i++) {
                readsClock.primarySent();
                takesTime.primarySent(ticker.nanoTime());
            }
            for (int i = random.nextInt(3); i > 0; i--) {
                assertThat(takesTime.tryBackup()).as("event %d (seed %d)", event, SEED).isEqualTo(readsClock.tryBackup());
            }
            ticker.advance(Duration.ofNanos(random.nextLong(20_000_000)));
            assertThat(takesTime.primariesInWindow()).isEqualTo(readsClock.primariesInWindow());
            assertThat(takesTime.available()).isEqualTo(readsClock.available());
        }
        assertThat(readsClock.refusals()).as("the script reaches the limit").isPositive();
    }

    @Test
    void aPrimaryTimedBeforeAnotherThreadsRotationCountsInTheCurrentBucket() {
        ManualTicker ticker = new ManualTicker();
        HedgeBudget budget = new HedgeBudget(HedgeSettings.defaults(), ticker);
        long before = ticker.nanoTime();
        ticker.advance(HedgeSettings.defaults().budgetWindow().multipliedBy(2));
        assertThat(budget.primariesInWindow()).isZero(); // rotated to now

        budget.primarySent(before);
        assertThat(budget.primariesInWindow()).isEqualTo(1);
        ticker.advance(HedgeSettings.defaults().budgetWindow().dividedBy(2));
        assertThat(budget.primariesInWindow()).as("still in the window half a window later").isEqualTo(1);
    }
}
