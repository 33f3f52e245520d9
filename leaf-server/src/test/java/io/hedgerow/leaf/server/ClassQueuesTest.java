package io.hedgerow.leaf.server;

import static io.hedgerow.leaf.server.ClassQueues.NO_DEADLINE;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The leaf's scheduling policy, scripted on a manual clock: each test queues tasks at known times
 * and asserts exactly which task each free worker takes.
 */
class ClassQueuesTest {
    private static final int INTERACTIVE = Priority.INTERACTIVE_VALUE;
    private static final int BACKUP = Priority.BACKUP_VALUE;
    private static final int BATCH = Priority.BATCH_VALUE;
    private static final int SHADOW = Priority.SHADOW_VALUE;

    private final ManualTicker ticker = new ManualTicker();
    private final List<String> expired = new ArrayList<>();

    @Test
    void takesTheHighestClassFirstAndEachClassInArrivalOrder() {
        ClassQueues<String> queues = strict();
        queues.offer("shadow", SHADOW, NO_DEADLINE);
        queues.offer("batch 1", BATCH, NO_DEADLINE);
        queues.offer("interactive 1", INTERACTIVE, NO_DEADLINE);
        queues.offer("backup", BACKUP, NO_DEADLINE);
        queues.offer("batch 2", BATCH, NO_DEADLINE);
        queues.offer("interactive 2", INTERACTIVE, NO_DEADLINE);
        queues.offer("unknown class", 42, NO_DEADLINE);

        assertThat(drain(queues)).containsExactly("interactive 1", "interactive 2", "backup", "batch 1", "batch 2",
                "shadow", "unknown class");
    }

    @Test
    void refusesATaskWhenItsClassIsFullButNotWhenAnotherClassIs() {
        ClassQueues<String> queues = new ClassQueues<>(
                SchedulingConfig.defaults().withDepth(Priority.INTERACTIVE, 2).withDepth(Priority.BATCH, 1), ticker);

        assertThat(queues.offer("i1", INTERACTIVE, NO_DEADLINE)).isTrue();
        assertThat(queues.offer("i2", INTERACTIVE, NO_DEADLINE)).isTrue();
        assertThat(queues.offer("i3", INTERACTIVE, NO_DEADLINE)).isFalse();
        assertThat(queues.offer("b1", BATCH, NO_DEADLINE)).isTrue();
        assertThat(queues.offer("b2", BATCH, NO_DEADLINE)).isFalse();
        assertThat(queues.size()).isEqualTo(3);
        assertThat(queues.size(INTERACTIVE)).isEqualTo(2);

        assertThat(queues.poll(expired)).isEqualTo("i1");
        assertThat(queues.offer("i3", INTERACTIVE, NO_DEADLINE)).as("room again").isTrue();
    }

    @Test
    void aTaskOfSeveralSearchesTakesOnePlaceToBeAdmittedAndCountsForEachOfItsSearches() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults().withDepth(Priority.INTERACTIVE, 2),
                ticker);

        assertThat(queues.offer("single", INTERACTIVE, NO_DEADLINE)).isTrue();
        assertThat(queues.offer("three parts", INTERACTIVE, NO_DEADLINE, false, 3)).as("a place was left").isTrue();
        assertThat(queues.waitingFresh(INTERACTIVE)).isEqualTo(4);
        assertThat(queues.size()).as("searches waiting, as the answers report").isEqualTo(4);
        assertThat(queues.size(INTERACTIVE)).isEqualTo(4);
        assertThat(queues.offer("refused", INTERACTIVE, NO_DEADLINE)).as("its searches fill the class").isFalse();

        assertThat(queues.poll(expired)).isEqualTo("single");
        assertThat(queues.offer("still refused", INTERACTIVE, NO_DEADLINE)).as("3 searches of a depth of 2").isFalse();
        assertThat(queues.remove("three parts", INTERACTIVE)).isTrue();
        assertThat(queues.size()).isZero();
        assertThat(queues.offer("admitted", INTERACTIVE, NO_DEADLINE)).isTrue();
        assertThat(drain(queues)).containsExactly("admitted");
    }

    @Test
    void requeuesAContinuationBehindTheWorkWaitingInItsClassEvenWhenFull() {
        ClassQueues<String> queues = new ClassQueues<>(
                SchedulingConfig.defaults().withDepth(Priority.INTERACTIVE, 2).withLowerClassEvery(0), ticker);
        queues.offer("cheap 1", INTERACTIVE, NO_DEADLINE);
        queues.offer("cheap 2", INTERACTIVE, NO_DEADLINE);
        queues.offer("batch", BATCH, NO_DEADLINE);

        assertThat(queues.hasWaitingAtOrAbove(INTERACTIVE)).as("a long search of its class should yield").isTrue();
        queues.requeue("long, slice 2", INTERACTIVE);

        assertThat(queues.size(INTERACTIVE)).isEqualTo(3);
        assertThat(drain(queues)).containsExactly("cheap 1", "cheap 2", "long, slice 2", "batch");
    }

    @Test
    void aSliceYieldsOnlyToItsOwnClassOrAHigherOne() {
        ClassQueues<String> queues = strict();
        assertThat(queues.hasWaitingAtOrAbove(INTERACTIVE)).isFalse();
        queues.offer("batch", BATCH, NO_DEADLINE);

        assertThat(queues.hasWaitingAtOrAbove(INTERACTIVE)).as("batch does not preempt interactive").isFalse();
        assertThat(queues.hasWaitingAtOrAbove(BACKUP)).isFalse();
        assertThat(queues.hasWaitingAtOrAbove(BATCH)).isTrue();
        assertThat(queues.hasWaitingAtOrAbove(SHADOW)).isTrue();
    }

    @Test
    void givesTheOldestLowerClassTaskOneTurnInNWhileHigherWorkWaits() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults().withLowerClassEvery(3), ticker);
        queues.offer("batch 1", BATCH, NO_DEADLINE); // t=0
        ticker.advanceMillis(1);
        queues.offer("backup 1", BACKUP, NO_DEADLINE); // t=1
        queues.offer("batch 2", BATCH, NO_DEADLINE);
        for (int i = 1; i <= 6; i++) {
            ticker.advanceMillis(1);
            queues.offer("interactive " + i, INTERACTIVE, NO_DEADLINE);
        }

        // Two interactive turns, then the oldest lower-class task (batch 1, older than backup 1), and so on.
        assertThat(drain(queues)).containsExactly("interactive 1", "interactive 2", "batch 1", "interactive 3",
                "interactive 4", "backup 1", "interactive 5", "interactive 6", "batch 2");
    }

    @Test
    void countsTurnsOnlyWhileLowerWorkWaits() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults().withLowerClassEvery(2), ticker);
        queues.offer("interactive 1", INTERACTIVE, NO_DEADLINE);
        assertThat(queues.poll(expired)).isEqualTo("interactive 1"); // nothing lower waited: not a turn passed over

        queues.offer("interactive 2", INTERACTIVE, NO_DEADLINE);
        queues.offer("interactive 3", INTERACTIVE, NO_DEADLINE);
        queues.offer("batch", BATCH, NO_DEADLINE);

        assertThat(drain(queues)).containsExactly("interactive 2", "batch", "interactive 3");
    }

    @Test
    void strictPriorityWhenTheGuardIsOff() {
        ClassQueues<String> queues = strict();
        queues.offer("batch", BATCH, NO_DEADLINE);
        for (int i = 1; i <= 20; i++) {
            queues.offer("interactive " + i, INTERACTIVE, NO_DEADLINE);
        }

        List<String> order = drain(queues);
        assertThat(order).hasSize(21).last().isEqualTo("batch");
    }

    @Test
    void dropsExpiredWorkAtDequeueWithoutCountingItAsATurn() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults().withLowerClassEvery(2), ticker);
        long now = ticker.nanoTime();
        queues.offer("expires at 5 ms", INTERACTIVE, now + 5_000_000);
        queues.offer("expires at 20 ms", INTERACTIVE, now + 20_000_000);
        queues.offer("no deadline", INTERACTIVE, NO_DEADLINE);
        queues.offer("batch, expires at 5 ms", BATCH, now + 5_000_000);
        queues.requeue("continuation", BATCH);

        ticker.advanceMillis(5);

        assertThat(queues.poll(expired)).isEqualTo("expires at 20 ms");
        assertThat(expired).containsExactly("expires at 5 ms");
        // Second turn with lower work waiting: the guard's. Its oldest task expired; the continuation never does.
        assertThat(queues.poll(expired)).isEqualTo("continuation");
        assertThat(expired).containsExactly("expires at 5 ms", "batch, expires at 5 ms");
        assertThat(queues.poll(expired)).isEqualTo("no deadline");
        assertThat(queues.poll(expired)).isNull();
        assertThat(queues.size()).isZero();
    }

    @Test
    void removesACancelledTaskSoItNeitherRunsNorHoldsAPlace() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults().withDepth(Priority.BATCH, 1), ticker);
        String cancelled = new String("cancelled");
        queues.offer(cancelled, BATCH, NO_DEADLINE);

        assertThat(queues.remove(cancelled, BATCH)).isTrue();
        assertThat(queues.remove(cancelled, BATCH)).isFalse();
        assertThat(queues.offer("next", BATCH, NO_DEADLINE)).isTrue();
        assertThat(drain(queues)).containsExactly("next");
    }

    @Test
    void searchWorkersTakeOnlyCheapWorkAndLaneWorkersOnlyExpensiveWork() {
        ClassQueues<String> queues = new ClassQueues<>(lanes(), ticker);
        queues.offer("expensive 1", INTERACTIVE, NO_DEADLINE, true);
        ticker.advanceMillis(1);
        queues.offer("expensive 2", INTERACTIVE, NO_DEADLINE, true);
        ticker.advanceMillis(1);
        queues.offer("cheap", INTERACTIVE, NO_DEADLINE, false);

        // The expensive tasks are older, but no search worker takes them.
        assertThat(queues.poll(expired)).isEqualTo("cheap");
        assertThat(queues.poll(expired)).as("nothing a search worker may take").isNull();
        assertThat(queues.size()).isEqualTo(2);

        assertThat(queues.poll(expired, true)).isEqualTo("expensive 1");
        assertThat(queues.poll(expired, true)).isEqualTo("expensive 2");
        assertThat(queues.poll(expired, true)).isNull();
        assertThat(expired).isEmpty();
    }

    @Test
    void aSearchMovedToTheLaneWaitsForALaneWorkerNotACheapOne() {
        ClassQueues<String> queues = new ClassQueues<>(lanes(), ticker);
        queues.requeue("long, moved after a slice", INTERACTIVE, true);
        ticker.advanceMillis(50); // long past its aging: still not a search worker's

        assertThat(queues.poll(expired)).isNull();
        assertThat(queues.hasWaitingAtOrAbove(INTERACTIVE)).as("nothing a cheap slice should yield to").isFalse();
        assertThat(queues.highestWaiting(false)).isEqualTo(-1);
        assertThat(queues.highestWaiting(true)).isEqualTo(INTERACTIVE);

        queues.offer("cheap", BATCH, NO_DEADLINE);
        assertThat(queues.hasWaitingAtOrAbove(INTERACTIVE)).as("batch does not preempt interactive").isFalse();
        assertThat(queues.highestWaiting(false)).isEqualTo(BATCH);
        assertThat(queues.poll(expired, true)).isEqualTo("long, moved after a slice");
        assertThat(queues.poll(expired)).isEqualTo("cheap");
    }

    @Test
    void continuationsGoBelowFreshWorkOfTheirClassButAboveLowerClasses() {
        ClassQueues<String> queues = new ClassQueues<>(lanes().withLowerClassEvery(0), ticker);
        queues.requeue("continuation", INTERACTIVE);
        ticker.advanceMillis(1);
        queues.offer("fresh 1", INTERACTIVE, NO_DEADLINE);
        queues.offer("batch", BATCH, NO_DEADLINE);
        queues.offer("fresh 2", INTERACTIVE, NO_DEADLINE);

        assertThat(drain(queues)).containsExactly("fresh 1", "fresh 2", "continuation", "batch");
    }

    @Test
    void theLaneResumesItsContinuationsBeforeStartingFreshWorkAndAPausedOneKeepsItsPlace() {
        ClassQueues<String> queues = new ClassQueues<>(lanes().withLowerClassEvery(0), ticker);
        queues.offer("expensive fresh", INTERACTIVE, NO_DEADLINE, true);
        ticker.advanceMillis(1);
        queues.requeue("moved to the lane 1", INTERACTIVE, true);
        ticker.advanceMillis(1);
        queues.requeue("moved to the lane 2", INTERACTIVE, true);
        queues.offer("expensive batch", BATCH, NO_DEADLINE, true);

        assertThat(queues.poll(expired, true)).isEqualTo("moved to the lane 1");
        // It paused (cheap work came) and keeps its place ahead of the one moved after it.
        ticker.advanceMillis(5);
        queues.requeueFirst("moved to the lane 1, paused", INTERACTIVE);

        assertThat(queues.poll(expired, true)).isEqualTo("moved to the lane 1, paused");
        assertThat(queues.poll(expired, true)).isEqualTo("moved to the lane 2");
        assertThat(queues.poll(expired, true)).isEqualTo("expensive fresh");
        assertThat(queues.poll(expired, true)).isEqualTo("expensive batch");
        assertThat(queues.poll(expired, true)).isNull();
    }

    @Test
    void continuationsDoNotCountAgainstTheDepthFreshRequestsSee() {
        ClassQueues<String> queues = new ClassQueues<>(lanes().withDepth(Priority.INTERACTIVE, 2), ticker);
        for (int i = 1; i <= 5; i++) {
            queues.requeue("parked " + i, INTERACTIVE, true);
        }
        assertThat(queues.waitingFresh(INTERACTIVE)).isZero();

        assertThat(queues.offer("cheap 1", INTERACTIVE, NO_DEADLINE)).isTrue();
        assertThat(queues.offer("expensive", INTERACTIVE, NO_DEADLINE, true)).isTrue();
        assertThat(queues.offer("cheap 3", INTERACTIVE, NO_DEADLINE)).as("two fresh fill the depth").isFalse();
        assertThat(queues.size(INTERACTIVE)).isEqualTo(7);
        assertThat(queues.waitingFresh(INTERACTIVE)).isEqualTo(2);
    }

    @Test
    void anAgedCheapContinuationGoesAheadOfFreshCheapWork() {
        ClassQueues<String> queues = new ClassQueues<>(SchedulingConfig.defaults()
                .withContinuationAging(Duration.ofMillis(10)).withLowerClassEvery(0), ticker);
        queues.requeue("long, slice 2", INTERACTIVE);
        ticker.advanceMillis(9);
        queues.offer("fresh 1", INTERACTIVE, NO_DEADLINE);
        assertThat(queues.poll(expired)).as("at 9 ms it still waits").isEqualTo("fresh 1");

        queues.offer("fresh 2", INTERACTIVE, NO_DEADLINE);
        ticker.advanceMillis(1);
        assertThat(queues.poll(expired)).as("at 10 ms it has aged").isEqualTo("long, slice 2");
        assertThat(queues.poll(expired)).isEqualTo("fresh 2");
    }

    @Test
    void theStarvationGuardCountsTurnsInEachPoolApart() {
        ClassQueues<String> queues = new ClassQueues<>(lanes().withLowerClassEvery(2), ticker);
        queues.offer("batch expensive", BATCH, NO_DEADLINE, true);
        ticker.advanceMillis(1);
        queues.offer("batch cheap", BATCH, NO_DEADLINE, false);
        for (int i = 1; i <= 3; i++) {
            queues.offer("interactive " + i, INTERACTIVE, NO_DEADLINE);
            queues.offer("interactive expensive " + i, INTERACTIVE, NO_DEADLINE, true);
        }

        assertThat(queues.poll(expired)).isEqualTo("interactive 1");
        assertThat(queues.poll(expired, true)).as("the lane's first turn: none passed over yet")
                .isEqualTo("interactive expensive 1");
        assertThat(queues.poll(expired)).as("the search workers' second turn").isEqualTo("batch cheap");
        assertThat(queues.poll(expired, true)).as("the lane's second turn").isEqualTo("batch expensive");
        assertThat(drain(queues)).containsExactly("interactive 2", "interactive 3");
        assertThat(queues.poll(expired, true)).isEqualTo("interactive expensive 2");
        assertThat(queues.poll(expired, true)).isEqualTo("interactive expensive 3");
    }

    private static SchedulingConfig lanes() {
        return SchedulingConfig.defaults().withExpensiveCost(1000);
    }

    private ClassQueues<String> strict() {
        return new ClassQueues<>(SchedulingConfig.defaults().withLowerClassEvery(0), ticker);
    }

    private List<String> drain(ClassQueues<String> queues) {
        List<String> order = new ArrayList<>();
        String next;
        while ((next = queues.poll(expired)) != null) {
            order.add(next);
        }
        assertThat(expired).as("nothing expired").isEmpty();
        return order;
    }
}
