package io.hedgerow.root.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.root.admission.AdmissionControl.Admission;
import io.hedgerow.root.admission.AdmissionControl.Admitted;
import io.hedgerow.root.admission.AdmissionControl.Outcome;
import io.hedgerow.root.admission.AdmissionControl.Permit;
import io.hedgerow.root.admission.AdmissionControl.Queued;
import io.hedgerow.root.admission.AdmissionControl.Refused;
import io.hedgerow.root.admission.AdmissionSettings.Algorithm;
import io.hedgerow.api.QueryPriority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Admission with its queue, scripted on a manual ticker: over the limit a search waits and starts
 * when one ends, with the time it waited; it is refused at once only when the queue is full, its
 * deadline would pass while queued, or the queue delay keeps growing.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AdmissionQueueTest {
    private static final long MS = 1_000_000L;
    private static final long NO_DEADLINE = Long.MAX_VALUE / 2;

    private final ManualTicker ticker = new ManualTicker();

    /** A search's callback that records when it was started. */
    private static final class Started implements AdmissionControl.Waiter {
        Permit permit;
        long queuedNanos = -1;
        int calls;

        @Override
        public void start(Permit started, long waited) {
            permit = started;
            queuedNanos = waited;
            calls++;
        }
    }

    private AdmissionControl fixed(int limit, int maxQueued) {
        return new AdmissionControl(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED).withLimits(limit, 1, 256)
                .withMaxQueued(maxQueued), ticker);
    }

    private Admission arrive(AdmissionControl admission, QueryPriority priority, long deadlineNanos, Started waiter) {
        return admission.acquire(priority, ticker.nanoTime(), deadlineNanos, waiter);
    }

    private Admission arrive(AdmissionControl admission, Started waiter) {
        return arrive(admission, QueryPriority.INTERACTIVE, NO_DEADLINE, waiter);
    }

    @Test
    void overTheLimitASearchWaitsAndStartsWhenOneEndsWithItsQueueDelay() {
        AdmissionControl admission = fixed(2, 100);
        Started first = new Started();
        Started second = new Started();
        Started third = new Started();
        Admission a = arrive(admission, first);
        Admission b = arrive(admission, second);
        Admission c = arrive(admission, third);
        assertThat(a).isInstanceOf(Admitted.class);
        assertThat(b).isInstanceOf(Admitted.class);
        assertThat(c).as("the third of limit 2 waits").isInstanceOf(Queued.class);
        assertThat(admission.queued()).isEqualTo(1);
        assertThat(third.calls).isZero();

        ticker.advanceMillis(4);
        ((Admitted) a).permit().release(Outcome.SUCCESS, ticker.nanoTime());
        assertThat(third.calls).as("started when the first ended").isEqualTo(1);
        assertThat(third.queuedNanos).isEqualTo(4 * MS);
        assertThat(admission.inflight()).isEqualTo(2);
        assertThat(admission.queued()).isZero();
        assertThat(admission.waited()).isEqualTo(1);
        assertThat(admission.waitedNanos()).isEqualTo(4 * MS);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isZero();

        third.permit.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(admission.inflight()).isEqualTo(1);
        assertThat(third.calls).as("started once").isEqualTo(1);
    }

    @Test
    void waitingSearchesStartFirstInFirstOut() {
        AdmissionControl admission = fixed(1, 100);
        Admitted running = (Admitted) arrive(admission, new Started());
        List<Started> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Started waiter = new Started();
            waiting.add(waiter);
            assertThat(arrive(admission, waiter)).isInstanceOf(Queued.class);
            ticker.advanceMillis(1);
        }
        Permit current = running.permit();
        for (int i = 0; i < 5; i++) {
            current.release(Outcome.SUCCESS, ticker.nanoTime());
            assertThat(waiting.get(i).calls).as("search %d starts at its turn", i).isEqualTo(1);
            if (i + 1 < 5) {
                assertThat(waiting.get(i + 1).calls).as("search %d still waits", i + 1).isZero();
            }
            current = waiting.get(i).permit;
        }
    }

    @Test
    void refusesAtOnceWhenTheQueueIsFull() {
        AdmissionControl admission = fixed(1, 2);
        arrive(admission, new Started());
        assertThat(arrive(admission, new Started())).isInstanceOf(Queued.class);
        assertThat(arrive(admission, new Started())).isInstanceOf(Queued.class);
        Admission full = arrive(admission, new Started());
        assertThat(full).isEqualTo(new Refused(Refusal.QUEUE_FULL));
        assertThat(admission.refused(Refusal.QUEUE_FULL)).isEqualTo(1);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isEqualTo(1);
    }

    @Test
    void noQueueRefusesEverySearchOverTheLimitAsBefore() {
        AdmissionControl admission = fixed(1, 0);
        assertThat(arrive(admission, new Started())).isInstanceOf(Admitted.class);
        assertThat(arrive(admission, new Started())).isEqualTo(new Refused(Refusal.QUEUE_FULL));
    }

    @Test
    void theQueueHoldsAboutOneSearchPerOpenConnectionAtLeastTheFloor() {
        AdmissionControl admission = fixed(1, 10_000);
        assertThat(admission.queueCapacity()).isEqualTo(AdmissionSettings.QUEUE_FLOOR);
        int[] connections = {1_000};
        admission.queueCapacityFrom(() -> connections[0]);
        assertThat(admission.queueCapacity()).isEqualTo(1_000);
        connections[0] = 50_000;
        assertThat(admission.queueCapacity()).as("capped by maxQueued").isEqualTo(10_000);
    }

    @Test
    void refusesASearchWhoseDeadlineWouldPassInTheQueue() {
        AdmissionControl admission = fixed(1, 100);
        Admitted running = (Admitted) arrive(admission, new Started());
        Started waiter = new Started();
        arrive(admission, waiter);
        ticker.advanceMillis(30);
        running.permit().release(Outcome.SUCCESS, ticker.nanoTime()); // it waited 30 ms
        assertThat(waiter.queuedNanos).isEqualTo(30 * MS);
        assertThat(arrive(admission, new Started())).as("queued behind the one now running").isInstanceOf(Queued.class);

        // Expected wait: 30 ms (the last search's). A deadline 10 ms away cannot be met.
        Admission late = arrive(admission, QueryPriority.INTERACTIVE, ticker.nanoTime() + 10 * MS, new Started());
        assertThat(late).isEqualTo(new Refused(Refusal.DEADLINE));
        Admission inTime = arrive(admission, QueryPriority.INTERACTIVE, ticker.nanoTime() + 100 * MS, new Started());
        assertThat(inTime).isInstanceOf(Queued.class);
        assertThat(admission.refused(Refusal.DEADLINE)).isEqualTo(1);
    }

    @Test
    void refusesAtEnqueueWhileTheQueueDelayKeepsGrowingAndQueuesAgainOnceItDrains() {
        AdmissionControl admission = fixed(1, 10_000);
        List<Started> waiting = new ArrayList<>();
        Permit running = ((Admitted) arrive(admission, new Started())).permit();
        // An open loop at twice the capacity: two arrivals every 10 ms, one search ends every 10 ms.
        Refused refused = null;
        int t;
        for (t = 0; t < 1_000 && refused == null; t += 10) {
            ticker.advanceMillis(10);
            running.release(Outcome.SUCCESS, ticker.nanoTime());
            Started next = waiting.isEmpty() ? null : waiting.remove(0);
            running = next == null ? null : next.permit;
            for (int i = 0; i < 2 && refused == null; i++) {
                Started waiter = new Started();
                Admission arrival = arrive(admission, waiter);
                if (arrival instanceof Refused r) {
                    refused = r;
                } else if (arrival instanceof Queued) {
                    waiting.add(waiter);
                } else {
                    running = ((Admitted) arrival).permit();
                }
            }
        }
        assertThat(refused).as("refused once the delay kept growing, at %d ms", t)
                .isEqualTo(new Refused(Refusal.STANDING_DELAY));
        // The delay of a search leaving the queue grows half as fast as time here, so it passes the
        // default tolerance of 250 ms at about 500 ms; the interval then closing sheds.
        assertThat(t).as("once past the tolerance, within an interval").isBetween(500, 700);
        assertThat(admission.refused(Refusal.QUEUE_FULL)).isZero();
        assertThat(admission.refused(Refusal.DEADLINE)).isZero();

        // The queue drains: every waiting search starts, none is refused after having waited.
        int started = 0;
        while (running != null) {
            ticker.advanceMillis(10);
            running.release(Outcome.SUCCESS, ticker.nanoTime());
            Started next = waiting.isEmpty() ? null : waiting.remove(0);
            running = next == null ? null : next.permit;
            started += next == null ? 0 : 1;
            if (next != null) {
                assertThat(next.calls).isEqualTo(1);
            }
        }
        assertThat(started).isPositive();
        assertThat(admission.queued()).isZero();
        assertThat(arrive(admission, new Started())).as("an empty queue sheds nothing").isInstanceOf(Admitted.class);
    }

    /**
     * Closed-loop clients, scripted: each sends again as soon as its search ends. The first to
     * start ends first (the searches take the same time).
     */
    private final class ClosedLoop {
        private final AdmissionControl admission;
        private final List<Permit> running = new ArrayList<>();
        private final List<Started> waiting = new ArrayList<>();

        ClosedLoop(AdmissionControl admission, int clients) {
            this.admission = admission;
            for (int client = 0; client < clients; client++) {
                send("client " + client);
            }
        }

        /** The oldest running search ends now; its client's next search must not be refused. */
        void oneEndsAndItsClientSendsAgain(String when) {
            running.remove(0).release(Outcome.SUCCESS, ticker.nanoTime());
            for (var it = waiting.iterator(); it.hasNext();) {
                Started w = it.next();
                if (w.permit != null) {
                    running.add(w.permit);
                    it.remove();
                }
            }
            send(when);
        }

        private void send(String when) {
            Started waiter = new Started();
            Admission arrival = arrive(admission, waiter);
            assertThat(arrival).as(when).isNotInstanceOf(Refused.class);
            if (arrival instanceof Admitted admitted) {
                running.add(admitted.permit());
            } else {
                waiting.add(waiter);
            }
        }
    }

    @Test
    void aClosedLoopOfMoreClientsThanTheLimitIsNeverRefused() {
        AdmissionControl admission = fixed(4, 10_000);
        // 32 clients, each sending again as soon as it is answered; a search takes 4 ms.
        ClosedLoop loop = new ClosedLoop(admission, 32);
        for (int round = 0; round < 2_000; round++) { // 8 s: every 1 ms one search ends and its client sends again
            ticker.advanceMillis(1);
            loop.oneEndsAndItsClientSendsAgain("round " + round);
        }
        assertThat(admission.queued()).as("a standing queue of 28").isEqualTo(28);
        assertThat(admission.lastWaitNanos()).isEqualTo(28 * MS);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isZero();
    }

    @Test
    void aClosedLoopWhoseSearchesSlowDownIsNeverRefused() {
        AdmissionControl admission = fixed(4, 10_000);
        // 32 clients, each sending again as soon as it is answered. A search ends every millisecond,
        // then every 2, 3... up to 6 ms, one more every 50 ms (the leaves slow down): the queue delay
        // grows by more than the target over several intervals in a row, as an overload's would, but
        // the searches outstanding stay at 32.
        ClosedLoop loop = new ClosedLoop(admission, 32);
        long startNanos = ticker.nanoTime();
        long slowestWaitNanos = 0;
        while (ticker.nanoTime() - startNanos < 3_000 * MS) {
            long elapsedMs = (ticker.nanoTime() - startNanos) / MS;
            ticker.advanceMillis(1 + Math.min(5, elapsedMs / 50));
            loop.oneEndsAndItsClientSendsAgain("at " + elapsedMs + " ms");
            slowestWaitNanos = Math.max(slowestWaitNanos, admission.lastWaitNanos());
        }
        assertThat(slowestWaitNanos).as("the delay grew from 28 ms to 6 x 28").isEqualTo(168 * MS);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isZero();
    }

    /**
     * Vegas, the default, sees each search's latency from when it left the queue: 300 closed-loop
     * clients over a limit of 64, every search taking 2 ms once it runs, keep a standing queue at
     * the root, and the limit must not read that queue as the cluster's (it would sink to its floor).
     */
    @Test
    void timeQueuedAtTheRootIsNotTakenForTheClustersLoad() {
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.defaults(), ticker);
        List<Permit> running = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        List<Started> waiting = new ArrayList<>();
        for (int client = 0; client < 300; client++) {
            send(admission, running, ends, waiting);
        }
        for (int ms = 1; ms <= 3_000; ms++) {
            ticker.advanceMillis(1);
            for (int i = running.size() - 1; i >= 0; i--) {
                if (ends.get(i) <= ticker.nanoTime()) {
                    Permit done = running.remove(i);
                    ends.remove(i);
                    done.release(Outcome.SUCCESS, ticker.nanoTime());
                    send(admission, running, ends, waiting); // the client sends again
                }
            }
            for (var it = waiting.iterator(); it.hasNext();) {
                Started w = it.next();
                if (w.permit != null) {
                    running.add(w.permit);
                    ends.add(ticker.nanoTime() + 2 * MS);
                    it.remove();
                }
            }
        }
        assertThat(admission.queued()).as("a standing queue at the root").isPositive();
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isZero();
        assertThat(admission.limit()).as("the limit, from 64").isGreaterThanOrEqualTo(64);
    }

    private void send(AdmissionControl admission, List<Permit> running, List<Long> ends, List<Started> waiting) {
        Started waiter = new Started();
        Admission arrival = arrive(admission, waiter);
        if (arrival instanceof Admitted admitted) {
            running.add(admitted.permit());
            ends.add(ticker.nanoTime() + 2 * MS);
        } else {
            assertThat(arrival).isInstanceOf(Queued.class);
            waiting.add(waiter);
        }
    }

    @Test
    void batchSearchesGetTheirShareOfTheQueueAndStartAfterInteractiveOnes() {
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.defaults().withAlgorithm(Algorithm.FIXED)
                .withLimits(2, 1, 2).withBatchShare(0.5).withMaxQueued(4), ticker);
        Permit running = ((Admitted) arrive(admission, new Started())).permit();
        Permit other = ((Admitted) arrive(admission, new Started())).permit();
        Started batch = new Started();
        Started batch2 = new Started();
        assertThat(arrive(admission, QueryPriority.BATCH, NO_DEADLINE, batch)).isInstanceOf(Queued.class);
        assertThat(arrive(admission, QueryPriority.BATCH, NO_DEADLINE, batch2)).isInstanceOf(Queued.class);
        assertThat(arrive(admission, QueryPriority.BATCH, NO_DEADLINE, new Started()))
                .as("batch gets half of a queue of 4").isEqualTo(new Refused(Refusal.QUEUE_FULL));
        Started interactive = new Started();
        assertThat(arrive(admission, interactive)).as("interactive still queued").isInstanceOf(Queued.class);
        assertThat(admission.rejected(QueryPriority.BATCH)).isEqualTo(1);
        assertThat(admission.rejected(QueryPriority.INTERACTIVE)).isZero();

        running.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(interactive.calls).as("the interactive search starts first, though it came last").isEqualTo(1);
        assertThat(batch.calls).isZero();
        other.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(batch.calls).as("1 in flight is batch's whole share of a limit of 2").isZero();
        interactive.permit.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(batch.calls).isEqualTo(1);
        assertThat(batch2.calls).as("a second batch search would pass batch's share").isZero();
        batch.permit.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(batch2.calls).isEqualTo(1);
    }

    @Test
    void aCancelledSearchLeavesTheQueueAndIsNeverStarted() {
        AdmissionControl admission = fixed(1, 100);
        Permit running = ((Admitted) arrive(admission, new Started())).permit();
        Started gone = new Started();
        Started next = new Started();
        Queued queued = (Queued) arrive(admission, gone);
        arrive(admission, next);
        assertThat(queued.ticket().cancel()).isTrue();
        assertThat(queued.ticket().cancel()).as("once").isFalse();
        assertThat(admission.queued()).isEqualTo(1);
        assertThat(admission.abandoned()).isEqualTo(1);

        running.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(gone.calls).isZero();
        assertThat(next.calls).isEqualTo(1);
    }

    @Test
    void aTicketOfAStartedSearchCancelsNothing() {
        AdmissionControl admission = fixed(1, 100);
        Permit running = ((Admitted) arrive(admission, new Started())).permit();
        Started waiter = new Started();
        Queued queued = (Queued) arrive(admission, waiter);
        running.release(Outcome.SUCCESS, ticker.advanceMillis(1).nanoTime());
        assertThat(waiter.calls).isEqualTo(1);
        assertThat(queued.ticket().cancel()).isFalse();
        assertThat(admission.inflight()).isEqualTo(1);
    }

    @Test
    void aWaiterThatThrowsGivesItsPlaceBackAndTheNextStillStarts() {
        AdmissionControl admission = fixed(2, 100);
        Permit first = ((Admitted) arrive(admission, new Started())).permit();
        Permit second = ((Admitted) arrive(admission, new Started())).permit();
        AdmissionControl.Waiter broken = (permit, waited) -> {
            throw new IllegalStateException("event loop shut down");
        };
        assertThat(admission.acquire(QueryPriority.INTERACTIVE, ticker.nanoTime(), NO_DEADLINE, broken))
                .isInstanceOf(Queued.class);
        Started next = new Started();
        arrive(admission, next);
        ticker.advanceMillis(1);
        first.release(Outcome.SUCCESS, ticker.nanoTime()); // the broken waiter's failure is not this release's
        assertThat(next.calls).as("started on the place the broken waiter gave back").isEqualTo(1);
        assertThat(admission.inflight()).as("the second and the next").isEqualTo(2);
        assertThat(admission.queued()).isZero();
        second.release(Outcome.SUCCESS, ticker.nanoTime());
        next.permit.release(Outcome.SUCCESS, ticker.nanoTime());
        assertThat(admission.inflight()).isZero();
    }

    @Test
    void offNeverQueues() {
        AdmissionControl admission = new AdmissionControl(AdmissionSettings.off(), ticker);
        for (int i = 0; i < 1_000; i++) {
            assertThat(arrive(admission, new Started())).isInstanceOf(Admitted.class);
        }
        assertThat(admission.queued()).isZero();
    }

    @Test
    void theDefaultsQueueUpToTenThousandWithCoDelsFigures() {
        AdmissionSettings defaults = AdmissionSettings.defaults();
        assertThat(defaults.maxQueued()).isEqualTo(10_000);
        assertThat(defaults.queueTarget()).isEqualTo(Duration.ofMillis(5));
        assertThat(defaults.queueInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(defaults.queueTolerance()).as("a killed leaf's transient is queued through").isEqualTo(Duration.ofMillis(250));
        assertThat(defaults.minLimit()).as("a floor at which 2 cores are already busy").isEqualTo(32);
        assertThat(defaults.describe()).isEqualTo("vegas from 64 in [32, 256], batch up to 50%, up to 10000 queued");
    }
}
