package io.hedgerow.root.hedge;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.concurrent.Concurrently;
import io.hedgerow.common.time.ManualTicker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Counting into the budget never waits for another thread: a primary counted past a bucket's end
 * while another thread holds the rotation's lock (as a rotation does) is counted at once, and counts.
 */
@Timeout(30)
class HedgeBudgetConcurrencyTest {
    private final ManualTicker ticker = new ManualTicker();
    private final HedgeBudget budget = new HedgeBudget(HedgeSettings.defaults(), ticker);

    @Test
    void countsPastABucketsEndWhileAnotherThreadRotates() {
        budget.primarySent();
        ticker.advance(HedgeSettings.defaults().budgetWindow().dividedBy(HedgeBudget.BUCKETS).multipliedBy(3).dividedBy(2));
        // As an event loop sending a fan-out's primaries while another loop rotates the ring.
        assertThat(Concurrently.finishesWhileHolding(budget.rotationLock(), () -> budget.primarySent(ticker.nanoTime())))
                .as("counted while the rotation's lock was held").isTrue();
        assertThat(budget.primariesInWindow()).as("both primaries in the window").isEqualTo(2);
    }
}
