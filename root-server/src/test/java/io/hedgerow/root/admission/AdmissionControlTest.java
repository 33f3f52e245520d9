package io.hedgerow.root.admission;

import static io.hedgerow.common.concurrent.Concurrently.awaitQuietly;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.QueryPriority;
import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import io.hedgerow.root.admission.AdmissionControl.Permit;
import io.hedgerow.root.admission.AdmissionSettings.Algorithm;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Admission scripted on a manual ticker: what is admitted, what is refused, how the limit moves. */
@Timeout(30)
class AdmissionControlTest {
    private final ManualTicker ticker = new ManualTicker();

    private static AdmissionControl fixed(int limit) {
        return new AdmissionControl(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(limit, 1, 256));
    }

    @Test
    void refusesOnceTheLimitIsInFlightAndAdmitsAgainWhenOneEnds() {
        AdmissionControl admission = fixed(2);
        Permit first = admission.tryAcquire(QueryPriority.INTERACTIVE, ticker.nanoTime());
        Permit second = admission.tryAcquire(QueryPriority.INTERACTIVE, ticker.nanoTime());
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, ticker.nanoTime())).isNull();
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isEqualTo(1);
        assertThat(admission.inflight()).isEqualTo(2);

        first.release(Outcome.SUCCESS, ticker.advanceMillis(3).nanoTime());
        assertThat(admission.inflight()).isEqualTo(1);
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, ticker.nanoTime())).isNotNull();
        assertThat(admission.admitted()).isEqualTo(3);
    }

    @Test
    void shedsBatchBeforeInteractive() {
        AdmissionControl admission = fixed(4); // batch up to half: 2
        assertThat(admission.tryAcquire(QueryPriority.BATCH, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.BATCH, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.BATCH, 0)).as("batch past its share").isNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).as("interactive past the limit").isNull();
        assertThat(admission.rejected(QueryPriority.BATCH)).isEqualTo(1);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isEqualTo(1);
    }

    @Test
    void aBatchSearchIsNeverRefusedTheLastSlotOfASmallLimitOutright() {
        AdmissionControl admission = fixed(1); // half of 1 rounds down; batch still gets one
        assertThat(admission.tryAcquire(QueryPriority.BATCH, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.BATCH, 0)).isNull();
    }

    @Test
    void releasingTwiceCountsOnce() {
        AdmissionControl admission = fixed(1);
        Permit permit = admission.tryAcquire(QueryPriority.INTERACTIVE, 0);
        permit.release(Outcome.SUCCESS, 1_000_000);
        permit.release(Outcome.SUCCESS, 2_000_000);
        assertThat(admission.inflight()).isZero();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNull();
    }

    @Test
    void releasesRacingFromTwoThreadsCountOnce() throws Exception {
        AdmissionControl admission = fixed(2);
        for (int round = 0; round < 200; round++) {
            Permit permit = admission.tryAcquire(QueryPriority.INTERACTIVE, 0);
            CyclicBarrier both = new CyclicBarrier(2);
            Thread other = new Thread(() -> {
                awaitQuietly(both);
                permit.release(Outcome.SUCCESS, 1_000_000);
            });
            other.start();
            awaitQuietly(both);
            permit.release(Outcome.SUCCESS, 1_000_000);
            other.join();
            assertThat(admission.inflight()).as("round %d", round).isZero();
        }
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).isNotNull();
        assertThat(admission.tryAcquire(QueryPriority.INTERACTIVE, 0)).as("two places, never more").isNull();
    }

    @Test
    void offAdmitsEverything() {
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.off());
        for (int i = 0; i < 10_000; i++) {
            assertThat(admission.tryAcquire(i % 2 == 0 ? QueryPriority.BATCH : QueryPriority.INTERACTIVE, 0)).isNotNull();
        }
        assertThat(admission.enabled()).isFalse();
        assertThat(admission.limit()).isEqualTo(Integer.MAX_VALUE);
    }

    /** Runs {@code count} rounds of {@code concurrent} searches that each take {@code rttMillis}. */
    private void load(AdmissionControl admission, int rounds, int concurrent, long rttMillis, Outcome outcome) {
        for (int round = 0; round < rounds; round++) {
            List<Permit> permits = new ArrayList<>();
            long start = ticker.nanoTime();
            for (int i = 0; i < concurrent; i++) {
                Permit permit = admission.tryAcquire(QueryPriority.INTERACTIVE, start);
                if (permit != null) {
                    permits.add(permit);
                }
            }
            ticker.advanceMillis(rttMillis);
            permits.forEach(permit -> permit.release(outcome, ticker.nanoTime()));
        }
    }

    @Test
    void gradient2ShrinksTheLimitWhileLatencyRisesAndGrowsItBackWhenItFalls() {
        shrinksWhileLatencyRisesAndGrowsBack(Algorithm.GRADIENT2);
    }

    /**
     * Vegas, the default, compares each latency with the least seen lately; it probes now and then
     * by taking the current latency as the least, which a cheap search then corrects (costs vary
     * tenfold in a real load), so the loaded rounds each have one fast search among slow ones. It
     * moves only while at least half the limit is in flight, so the rounds offer more than the
     * limit (a limit above twice what is offered stays put: it was flaky with 64 offered).
     */
    @Test
    void vegasTheDefaultShrinksTheLimitWhileLatencyRisesAndGrowsItBackWhenItFalls() {
        assertThat(AdmissionSettings.defaults().algorithm()).isEqualTo(Algorithm.VEGAS);
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.defaults().withLimits(32, 4, 256));
        load(admission, 50, 32, 2, Outcome.SUCCESS);
        int steady = admission.limit();
        assertThat(steady).isGreaterThanOrEqualTo(32);

        for (int round = 0; round < 20; round++) { // a queue builds: 20 ms, but for one cheap search a round
            long start = ticker.nanoTime();
            List<Permit> permits = new ArrayList<>();
            for (int i = 0; i < 300; i++) { // more than the limit: Vegas ignores samples while under half of it
                Permit permit = admission.tryAcquire(QueryPriority.INTERACTIVE, start);
                if (permit != null) {
                    permits.add(permit);
                }
            }
            ticker.advanceMillis(2);
            permits.get(0).release(Outcome.SUCCESS, ticker.nanoTime());
            ticker.advanceMillis(18);
            permits.forEach(permit -> permit.release(Outcome.SUCCESS, ticker.nanoTime()));
        }
        int loaded = admission.limit();
        assertThat(loaded).as("limit after latency rose tenfold (steady: %d)", steady).isLessThan(steady / 2);

        load(admission, 200, 64, 2, Outcome.SUCCESS);
        assertThat(admission.limit()).as("limit once latency is back").isGreaterThan(loaded);
    }

    private void shrinksWhileLatencyRisesAndGrowsBack(Algorithm algorithm) {
        AdmissionControl admission = new AdmissionControl(
                AdmissionSettings.defaults().withAlgorithm(algorithm).withLimits(32, 4, 256));
        load(admission, 50, 32, 2, Outcome.SUCCESS); // steady: 2 ms at the limit
        int steady = admission.limit();
        assertThat(steady).isGreaterThanOrEqualTo(32);

        load(admission, 20, 64, 20, Outcome.SUCCESS); // a queue builds: 20 ms
        int loaded = admission.limit();
        assertThat(loaded).as("limit after latency rose tenfold (steady: %d)", steady).isLessThan(steady);

        load(admission, 200, 64, 2, Outcome.SUCCESS); // the queue drains
        assertThat(admission.limit()).as("limit once latency is back").isGreaterThan(loaded);
    }

    @Test
    void searchesThatSayNothingAboutLoadDoNotMoveTheLimit() {
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.defaults().withLimits(32, 4, 256));
        load(admission, 50, 32, 2, Outcome.SUCCESS);
        int steady = admission.limit();
        load(admission, 50, 32, 200, Outcome.IGNORED); // e.g. cache hits or bad queries, however long
        assertThat(admission.limit()).isEqualTo(steady);
    }

    @Test
    void vegasBacksOffOnBusyLeavesAtSteadyLatency() {
        AdmissionSettings vegas = AdmissionSettings.defaults().withAlgorithm(Algorithm.VEGAS).withLimits(32, 2, 256);
        AdmissionControl quiet = new AdmissionControl(vegas);
        AdmissionControl busy = new AdmissionControl(vegas);
        for (int round = 0; round < 40; round++) {
            load(quiet, 1, 32, 2, Outcome.SUCCESS);
            for (int i = 0; i < 32; i++) {
                busy.leafBusy(); // every search of the round met a busy leaf
            }
            load(busy, 1, 32, 2, Outcome.SUCCESS);
        }
        assertThat(busy.drops()).isPositive();
        assertThat(quiet.drops()).isZero();
        assertThat(busy.limit()).isLessThan(quiet.limit());
        assertThat(busy.limit()).isGreaterThanOrEqualTo(2); // never below minLimit
    }

    @Test
    void busyAnswersChargeAtMostOneDropPerSearchInTheLimit() {
        AdmissionControl admission = fixed(3);
        for (int i = 0; i < 100; i++) {
            admission.leafBusy();
        }
        load(admission, 10, 3, 1, Outcome.SUCCESS);
        assertThat(admission.drops()).isEqualTo(3);
    }

    @Test
    void failedSearchesAreDrops() {
        AdmissionControl admission = fixed(2);
        load(admission, 1, 2, 1000, Outcome.DROPPED);
        assertThat(admission.drops()).isEqualTo(2);
    }
}
