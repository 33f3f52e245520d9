package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Counting into the budget never waits for another thread: a primary counted past a bucket's end
 * while another thread holds the budget (as a rotation would) is counted at once, and counts.
 */
@Timeout(20)
class HedgeBudgetConcurrencyTest {
    private final ManualTicker ticker = new ManualTicker();
    private final HedgeBudget budget = new HedgeBudget(HedgeSettings.defaults(), ticker);

    @Test
    void countsPastABucketsEndWhileAnotherThreadHoldsTheBudget() throws Exception {
        budget.primarySent();
        ticker.advance(HedgeSettings.defaults().budgetWindow().dividedBy(HedgeBudget.BUCKETS).multipliedBy(3).dividedBy(2));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (budget) {
                held.countDown();
                awaitQuietly(release);
            }
        });
        holder.start();
        held.await();
        CountDownLatch counted = new CountDownLatch(1);
        Thread loop = new Thread(() -> { // as an event loop sending a fan-out's primaries
            budget.primarySent(ticker.nanoTime());
            counted.countDown();
        });
        loop.start();
        try {
            // A deadline, not a timing claim: a count that waits for the budget never gets there while held.
            assertThat(counted.await(10, TimeUnit.SECONDS)).as("counted while the budget was held").isTrue();
        } finally {
            release.countDown();
            holder.join();
            loop.join();
        }
        assertThat(budget.primariesInWindow()).as("both primaries in the window").isEqualTo(2);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
