package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leaf's shared queues: one per class, each bounded and refusing at once when full, running the
 * highest scheduling class first and each class in submission order; cancelled tasks leave at once,
 * expired ones are answered without running. (The exact policy, starvation guard included, is
 * ClassQueuesTest's.)
 * A task blocked on a latch holds the only worker, so the queue's state is known exactly.
 */
class SearchSchedulerTest {
    /** Only a worker that never runs a task reaches it. */
    private static final long AWAIT_SECONDS = 30;

    private final CountDownLatch blockerStarted = new CountDownLatch(1);
    private final CountDownLatch releaseBlocker = new CountDownLatch(1);
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private SearchScheduler scheduler;

    @AfterEach
    void close() {
        releaseBlocker.countDown();
        if (scheduler != null) {
            scheduler.close();
        }
    }

    @Test
    void acceptsUpToItsCapacityBehindABusyWorkerAndRefusesTheNext() throws InterruptedException {
        scheduler = withDepth(2);
        occupyTheWorker();

        assertThat(scheduler.trySubmit(record("first", null))).isTrue();
        assertThat(scheduler.trySubmit(record("second", null))).isTrue();
        assertThat(scheduler.queued()).isEqualTo(2);
        assertThat(scheduler.trySubmit(record("third", null))).as("a full queue").isFalse();
        assertThat(scheduler.queued()).isEqualTo(2);
        assertThat(ran).containsExactly("blocker");
    }

    @Test
    void runsQueuedTasksInSubmissionOrderOnceTheWorkerIsFree() throws InterruptedException {
        scheduler = withDepth(2);
        occupyTheWorker();
        CountDownLatch bothRan = new CountDownLatch(2);
        assertThat(scheduler.trySubmit(record("first", bothRan))).isTrue();
        assertThat(scheduler.trySubmit(record("second", bothRan))).isTrue();
        assertThat(scheduler.trySubmit(record("refused", bothRan))).isFalse();

        releaseBlocker.countDown();

        await(bothRan);
        assertThat(ran).containsExactly("blocker", "first", "second");
        assertThat(scheduler.queued()).isZero();
    }

    @Test
    void acceptsAgainOnceTheQueueHasDrained() throws InterruptedException {
        scheduler = withDepth(2);
        occupyTheWorker();
        CountDownLatch drained = new CountDownLatch(2);
        scheduler.trySubmit(record("first", drained));
        scheduler.trySubmit(record("second", drained));
        assertThat(scheduler.trySubmit(record("refused", null))).isFalse();
        releaseBlocker.countDown();
        await(drained);

        CountDownLatch later = new CountDownLatch(1);
        assertThat(scheduler.trySubmit(record("later", later))).isTrue();

        await(later);
        assertThat(ran).containsExactly("blocker", "first", "second", "later");
    }

    @Test
    void runsTheHighestClassFirstAndEachClassInOrder() throws InterruptedException {
        scheduler = withDepth(6);
        occupyTheWorker();
        CountDownLatch allRan = new CountDownLatch(6);
        assertThat(scheduler.trySubmit(record("backup 1", allRan), Priority.BACKUP_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("shadow", allRan), Priority.SHADOW_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("primary 1", allRan), Priority.INTERACTIVE_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("backup 2", allRan), Priority.BACKUP_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("unknown class", allRan), 17)).isTrue();
        assertThat(scheduler.trySubmit(record("primary 2", allRan))).isTrue();

        releaseBlocker.countDown();

        await(allRan);
        assertThat(ran).containsExactly("blocker", "primary 1", "primary 2", "backup 1", "backup 2", "shadow",
                "unknown class");
    }

    @Test
    void keepsItsWorkerWhenATaskThrows() throws InterruptedException {
        scheduler = withDepth(2);
        CountDownLatch after = new CountDownLatch(1);

        assertThat(scheduler.trySubmit(() -> {
            ran.add("thrower");
            throw new IllegalStateException("a bug in a task (this exception is expected by the test)");
        })).isTrue();
        assertThat(scheduler.trySubmit(record("after", after))).isTrue();

        await(after);
        assertThat(ran).containsExactly("thrower", "after");
    }

    @Test
    void refusesEverythingOnceClosed() throws InterruptedException {
        scheduler = withDepth(2);
        occupyTheWorker();

        scheduler.close();

        assertThat(scheduler.trySubmit(record("late", null))).isFalse();
        assertThat(scheduler.queued()).isZero();
    }

    @Test
    void boundsEachClassByItsOwnDepth() throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withDepth(Priority.INTERACTIVE, 1)
                .withDepth(Priority.BATCH, 2), new ManualTicker());
        occupyTheWorker();

        assertThat(scheduler.trySubmit(record("primary", null))).isTrue();
        assertThat(scheduler.trySubmit(record("primary refused", null))).as("interactive is full").isFalse();
        assertThat(scheduler.trySubmit(record("batch 1", null), Priority.BATCH_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("batch 2", null), Priority.BATCH_VALUE)).isTrue();
        assertThat(scheduler.trySubmit(record("batch refused", null), Priority.BATCH_VALUE)).isFalse();
        assertThat(scheduler.queued()).isEqualTo(3);
    }

    @Test
    void aRemovedTaskFreesItsPlaceAtOnceAndNeverRuns() throws InterruptedException {
        scheduler = withDepth(1);
        occupyTheWorker();
        Runnable cancelled = record("cancelled", null);
        assertThat(scheduler.trySubmit(cancelled)).isTrue();

        assertThat(scheduler.remove(cancelled, Priority.INTERACTIVE_VALUE)).isTrue();
        assertThat(scheduler.remove(cancelled, Priority.INTERACTIVE_VALUE)).as("only once").isFalse();
        CountDownLatch next = new CountDownLatch(1);
        assertThat(scheduler.trySubmit(record("next", next))).as("its place is free").isTrue();
        releaseBlocker.countDown();

        await(next);
        assertThat(ran).containsExactly("blocker", "next");
    }

    @Test
    void answersATaskWhoseDeadlinePassedWhileQueuedWithoutRunningIt() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults(), ticker);
        occupyTheWorker();
        CountDownLatch done = new CountDownLatch(2);
        long deadline = ticker.nanoTime() + 5_000_000;
        assertThat(scheduler.trySubmit(record("late", done), Priority.INTERACTIVE_VALUE, deadline,
                record("late expired", done))).isTrue();
        assertThat(scheduler.trySubmit(record("in time", done), Priority.INTERACTIVE_VALUE, deadline + 10_000_000,
                record("in time expired", done))).isTrue();

        ticker.advanceMillis(5);
        releaseBlocker.countDown();

        await(done);
        assertThat(ran).containsExactly("blocker", "late expired", "in time");
    }

    @Test
    void withLanesExpensiveWorkRunsOnLaneWorkersOfItsOwnAndNeverHoldsASearchWorker() throws InterruptedException {
        scheduler = new SearchScheduler(2, SchedulingConfig.defaults().withExpensiveCost(1000), new ManualTicker());
        assertThat(scheduler.workers()).isEqualTo(2);
        assertThat(scheduler.laneWorkers()).as("all workers but one, in the lane").isEqualTo(1);
        CountDownLatch expensiveStarted = new CountDownLatch(1);
        List<Boolean> mayRunExpensive = new CopyOnWriteArrayList<>();
        assertThat(scheduler.requeue(() -> {
            ran.add("expensive 1 on " + Thread.currentThread().getName());
            mayRunExpensive.add(scheduler.runsExpensiveWork());
            expensiveStarted.countDown();
            try {
                releaseBlocker.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, Priority.INTERACTIVE_VALUE, true)).isTrue();
        await(expensiveStarted);
        CountDownLatch cheapDone = new CountDownLatch(2);
        CountDownLatch secondDone = new CountDownLatch(1);

        // The second expensive one is older than the cheap ones, but waits for the lane's only worker.
        scheduler.requeue(record("expensive 2", secondDone), Priority.INTERACTIVE_VALUE, true);
        scheduler.trySubmit(() -> {
            mayRunExpensive.add(scheduler.runsExpensiveWork());
            cheapDone.countDown();
        });
        scheduler.trySubmit(record("cheap", cheapDone));
        await(cheapDone);
        assertThat(ran).containsExactly("expensive 1 on leaf-lane-0", "cheap");
        assertThat(mayRunExpensive).as("on the lane worker, then on a search worker").containsExactly(true, false);

        releaseBlocker.countDown();
        await(secondDone);
        assertThat(ran).containsExactly("expensive 1 on leaf-lane-0", "cheap", "expensive 2");
    }

    @Test
    void cheapWorkAloneNeverWakesTheLane() throws InterruptedException {
        // One search worker, so each task starts only after the worker has ended the one before it
        // (and, on the old code, signalled the lane for it).
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withExpensiveCost(1000), new ManualTicker());
        int tasks = 20;
        CountDownLatch allRan = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            assertThat(scheduler.trySubmit(record("cheap " + i, allRan))).isTrue();
        }
        await(allRan);

        assertThat(scheduler.laneSignals()).as("lane wake-ups with no lane work").isZero();
    }

    @Test
    void aCheapTaskEndingWakesTheLaneWhenLaneWorkWaitsAtTheGate() throws InterruptedException {
        CountDownLatch expensiveDone = laneWorkHeldBackByCheapWork(new ManualTicker(), Duration.ofMinutes(10));
        long before = scheduler.laneSignals();
        releaseBlocker.countDown();

        await(expensiveDone);
        assertThat(scheduler.laneSignals()).as("the cheap task's end signalled the waiting lane").isGreaterThan(before);
    }

    @Test
    void runsNothingInlineUnlessTheSettingIsOn() throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withExpensiveCost(1000), new ManualTicker());
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.trySubmit(record("warm-up", ran));
        await(ran);

        assertThat(scheduler.tryStartInline(Priority.INTERACTIVE_VALUE)).isFalse();
    }

    @Test
    void runsInlineOnlyWithNothingQueuedAndASearchWorkerIdle() throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withExpensiveCost(1000).withInlineCheap(true),
                new ManualTicker());
        awaitInlineAllowed();

        occupyTheWorker();
        assertThat(scheduler.tryStartInline(Priority.INTERACTIVE_VALUE)).as("no search worker idle").isFalse();
        assertThat(scheduler.trySubmit(record("queued", null))).isTrue();
        assertThat(scheduler.tryStartInline(Priority.INTERACTIVE_VALUE)).as("work queued").isFalse();
    }

    @Test
    void theLaneStepsAsideForASearchRunningInline() throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withExpensiveCost(1000).withInlineCheap(true)
                .withContinuationAging(Duration.ofMinutes(10)), new ManualTicker());
        awaitInlineAllowed();
        assertThat(scheduler.tryStartInline(Priority.INTERACTIVE_VALUE)).isTrue();
        CountDownLatch expensiveDone = new CountDownLatch(1);

        scheduler.requeue(record("expensive", expensiveDone), Priority.INTERACTIVE_VALUE, true);
        awaitLaneWorkerHeldAtTheGate();
        assertThat(ran).isEmpty();
        scheduler.inlineEnded(Priority.INTERACTIVE_VALUE);

        await(expensiveDone);
        assertThat(ran).containsExactly("expensive");
    }

    /** Waits until the search worker waits for work (a probe that is allowed ends at once). */
    private void awaitInlineAllowed() {
        Eventually.await(() -> {
            if (!scheduler.tryStartInline(Priority.INTERACTIVE_VALUE)) {
                return false;
            }
            scheduler.inlineEnded(Priority.INTERACTIVE_VALUE);
            return true;
        }, "the search worker idle");
    }

    @Test
    void theLaneWaitsWhileCheapWorkRunsAndGoesOnWhenItEnds() throws InterruptedException {
        CountDownLatch expensiveDone = laneWorkHeldBackByCheapWork(new ManualTicker(), Duration.ofMinutes(10));
        assertThat(ran).containsExactly("blocker");
        releaseBlocker.countDown();

        await(expensiveDone);
        assertThat(ran).containsExactly("blocker", "expensive");
    }

    @Test
    void theLaneRunsAnywayOnceCheapWorkHasHeldItBackItsMaximumWait() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        CountDownLatch expensiveDone = laneWorkHeldBackByCheapWork(ticker, Duration.ofMillis(50));

        ticker.advanceMillis(50); // the gate's own wait ends within 50 ms of real time, and finds this

        await(expensiveDone);
        assertThat(ran).as("while the cheap task still runs").containsExactly("blocker", "expensive");
    }

    /**
     * One worker and a lane with {@code aging}: the worker runs a cheap task until {@link
     * #releaseBlocker} opens, and lane work queued meanwhile is held at the gate; returns the lane
     * work's latch.
     */
    private CountDownLatch laneWorkHeldBackByCheapWork(ManualTicker ticker, Duration aging) throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults().withExpensiveCost(1000)
                .withContinuationAging(aging), ticker);
        occupyTheWorker();
        CountDownLatch expensiveDone = new CountDownLatch(1);
        scheduler.requeue(record("expensive", expensiveDone), Priority.INTERACTIVE_VALUE, true);
        awaitLaneWorkerHeldAtTheGate();
        return expensiveDone;
    }

    /** The lane's worker waits with a timeout only at the gate (without work it waits for a signal). */
    private static void awaitLaneWorkerHeldAtTheGate() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
        while (laneWorkerState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime() < deadline).as("lane worker held at the gate within %d s", AWAIT_SECONDS)
                    .isTrue();
            Thread.onSpinWait();
        }
    }

    private static Thread.State laneWorkerState() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("leaf-lane-0"))
                .findFirst().map(Thread::getState).orElse(Thread.State.NEW);
    }

    @Test
    void withoutLanesThereAreNoLaneWorkersAndEveryWorkerRunsAnything() throws InterruptedException {
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults(), new ManualTicker());
        assertThat(scheduler.laneWorkers()).isZero();
        CountDownLatch done = new CountDownLatch(1);
        List<Boolean> mayRunExpensive = new CopyOnWriteArrayList<>();
        // Marked expensive, but with lanes off that means nothing: the only worker runs it.
        scheduler.requeue(() -> {
            mayRunExpensive.add(scheduler.runsExpensiveWork());
            done.countDown();
        }, Priority.INTERACTIVE_VALUE, true);
        await(done);
        assertThat(mayRunExpensive).containsExactly(true);
    }

    @Test
    void refusesNonsensicalSizesNamingThem() {
        assertThatThrownBy(() -> new SearchScheduler(0, SchedulingConfig.defaults(), new ManualTicker()))
                .hasMessage("workers: 0 (expected: >= 1)");
        assertThatThrownBy(() -> SchedulingConfig.defaults().withDepth(Priority.BATCH, 0))
                .hasMessage("queue depth of batch: 0 (expected: >= 1)");
        assertThatThrownBy(() -> SchedulingConfig.defaults().withLowerClassEvery(1))
                .hasMessage("lowerClassEvery: 1 (expected: 0 for off, or >= 2)");
    }

    /** One worker; every class's queue {@code depth} deep; no starvation guard, so the order is strict. */
    private static SearchScheduler withDepth(int depth) {
        return new SearchScheduler(1, new SchedulingConfig(Collections.nCopies(SchedulingConfig.CLASSES, depth), 0),
                new ManualTicker());
    }

    /** Submits a task that holds the only worker until {@link #releaseBlocker} opens. */
    private void occupyTheWorker() throws InterruptedException {
        assertThat(scheduler.trySubmit(() -> {
            ran.add("blocker");
            blockerStarted.countDown();
            try {
                releaseBlocker.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })).isTrue();
        // Once it runs, the worker has taken it off the queue: the queue is empty and the worker busy.
        await(blockerStarted);
        assertThat(scheduler.queued()).isZero();
    }

    private Runnable record(String name, CountDownLatch done) {
        return () -> {
            ran.add(name);
            if (done != null) {
                done.countDown();
            }
        };
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(AWAIT_SECONDS, TimeUnit.SECONDS)).as("waited %d s", AWAIT_SECONDS).isTrue();
    }
}
