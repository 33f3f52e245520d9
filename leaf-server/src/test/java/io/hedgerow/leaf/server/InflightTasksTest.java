package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-flight registry and a task's state, without sockets: tombstones on a manual clock, and
 * cancels racing workers for thousands of tasks, each answering exactly once.
 */
class InflightTasksTest {
    private static final long ROOT = 41;
    private final ManualTicker ticker = new ManualTicker();
    private final LeafCounters counters = new LeafCounters();
    private final InflightTasks inflight = new InflightTasks(ticker, counters, InstantSource.fixed(Instant.EPOCH));
    /** Its worker never gets a task here (tasks run on the test's threads): it only takes cancelled ones out. */
    private final SearchScheduler scheduler = new SearchScheduler(1, SchedulingConfig.defaults(), ticker);
    private final LeafContext context = new LeafContext(null, scheduler, inflight, ticker,
            new FaultControl(false, new FaultInjector(ticker, () -> 1), () -> { }), counters, null, 0,
            QueryOfDeath.NONE, null, null);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OutboundBatcher replies = new OutboundBatcher(channel, ROOT);

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        scheduler.close();
    }

    // ------------------------------------------------------------------ tombstones

    @Test
    void aTiedRequestArrivingWithinTheTombstonesLifeIsAnsweredCancelled() {
        inflight.cancel(ROOT, twinCancel(7));
        assertThat(counters.snapshot().twinCancelsRemembered()).isEqualTo(1);
        ticker.advance(InflightTasks.TOMBSTONE_TTL.minusNanos(1));

        CountingTask task = new CountingTask(7);
        assertThat(inflight.register(task, true)).as("not to be queued").isFalse();

        assertThat(answers()).extracting(frame -> frame.getResult().getStatus()).containsExactly(Status.CANCELLED);
        assertThat(counters.snapshot().tombstonedDrops()).isEqualTo(1);
        assertThat(inflight.register(new CountingTask(7), true)).as("a tombstone is used once").isTrue();
    }

    @Test
    void aTombstoneLapsesAfterItsTimeToLive() {
        inflight.cancel(ROOT, twinCancel(8));
        ticker.advance(InflightTasks.TOMBSTONE_TTL);

        assertThat(inflight.register(new CountingTask(8), true)).isTrue();
        assertThat(counters.snapshot().tombstonedDrops()).isZero();
        assertThat(answers()).isEmpty();
    }

    @Test
    void aRequestWithoutATwinIgnoresTombstones() {
        inflight.cancel(ROOT, twinCancel(9));
        assertThat(inflight.register(new CountingTask(9), false)).isTrue();
        assertThat(answers()).isEmpty();
    }

    @Test
    void keepsAtMostTheBoundOfTombstones() {
        for (int id = 0; id < InflightTasks.MAX_TOMBSTONES + 5_000; id++) {
            inflight.cancel(ROOT, twinCancel(id));
        }
        assertThat(inflight.tombstones()).isLessThanOrEqualTo(InflightTasks.MAX_TOMBSTONES);
    }

    // ------------------------------------------------------------------ twin cancels' delays

    @Test
    void measuresATwinsCancelFromItsSendTimeAndSetsAsideOnesFromAClockAhead() {
        Instant now = Instant.ofEpochSecond(1_000_000);
        InflightTasks measuring = new InflightTasks(ticker, counters, InstantSource.fixed(now));
        long nowNanos = InflightTasks.unixNanos(now);

        measuring.cancel(ROOT, twinCancel(1).toBuilder().setSentAtUnixNanos(nowNanos - 1_500_000).build());
        measuring.cancel(ROOT, twinCancel(2).toBuilder().setSentAtUnixNanos(nowNanos + 2_000).build());
        measuring.cancel(ROOT, twinCancel(3)); // not stamped: not measured

        LeafCounters.Snapshot snapshot = counters.snapshot();
        assertThat(snapshot.twinCancelsReceived()).isEqualTo(3);
        assertThat(snapshot.twinCancelDelays()).isEqualTo(1);
        assertThat(snapshot.twinCancelDelayP50Micros()).isBetween(1_490L, 1_510L);
        assertThat(snapshot.twinCancelDelayMaxMicros()).isBetween(1_490L, 1_510L);
        assertThat(snapshot.twinCancelDelaysNegative()).isEqualTo(1);
    }

    @Test
    void knowsRequestsByRootAndIdSoAnotherRootsCancelFindsNothing() {
        CountingTask task = new CountingTask(12);
        assertThat(inflight.register(task, false)).isTrue();

        inflight.cancel(ROOT + 1, Cancel.newBuilder().setRequestId(12).build());
        inflight.cancel(ROOT + 1, twinCancel(12));
        assertThat(answers()).as("the same id from another root").isEmpty();
        assertThat(counters.snapshot().rootCancelsTooLate()).isEqualTo(1);
        assertThat(counters.snapshot().twinCancelsRemembered()).isEqualTo(1);

        inflight.cancel(ROOT, Cancel.newBuilder().setRequestId(12).build());
        assertThat(answers()).extracting(frame -> frame.getResult().getStatus()).containsExactly(Status.CANCELLED);
    }

    // ------------------------------------------------------------------ exactly one answer

    @Test
    void aDroppedTaskIsNotRefusedBusyAndItsWorkerSkipsIt() {
        CountingTask task = new CountingTask(11);
        assertThat(inflight.register(task, false)).isTrue();
        inflight.cancel(ROOT, Cancel.newBuilder().setRequestId(11).build());

        assertThat(task.refuse()).as("no BUSY after CANCELLED").isFalse();
        task.run();

        assertThat(task.executed).hasValue(0);
        assertThat(answers()).extracting(frame -> frame.getResult().getStatus()).containsExactly(Status.CANCELLED);
        assertThat(counters.snapshot().rootCancelsDroppedQueued()).isEqualTo(1);
        inflight.cancel(ROOT, Cancel.newBuilder().setRequestId(11).build());
        assertThat(counters.snapshot().rootCancelsTooLate()).as("it left the registry").isEqualTo(1);
    }

    @Test
    void aCancelRacingTheWorkerLeavesExactlyOneAnswer() throws Exception {
        long seed = 0x7135L; // which cancels come from a twin; the interleavings are the machine's
        System.out.println("InflightTasksTest race seed " + seed);
        Random random = new Random(seed);
        int tasks = 2_000;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<CountingTask> all = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                CountingTask task = new CountingTask(100 + i);
                all.add(task);
                inflight.register(task, false);
                boolean fromTwin = random.nextBoolean();
                CyclicBarrier start = new CyclicBarrier(2);
                Future<?> worker = threads.submit(() -> {
                    start.await();
                    task.run();
                    return null;
                });
                Future<?> canceller = threads.submit(() -> {
                    start.await();
                    inflight.cancel(ROOT, Cancel.newBuilder().setRequestId(task.requestId()).setIfQueued(fromTwin).build());
                    return null;
                });
                worker.get(30, TimeUnit.SECONDS);
                canceller.get(30, TimeUnit.SECONDS);
            }
            List<Frame> answers = answers();
            assertThat(answers).as("seed %d", seed).hasSize(tasks);
            assertThat(answers.stream().map(frame -> frame.getResult().getRequestId()).distinct().count()).isEqualTo(tasks);
            long cancelled = answers.stream().filter(frame -> frame.getResult().getStatus() == Status.CANCELLED).count();
            long executed = all.stream().mapToInt(task -> task.executed.get()).sum();
            assertThat(cancelled + executed).as("seed %d", seed).isEqualTo(tasks);
            LeafCounters.Snapshot counts = counters.snapshot();
            assertThat(counts.rootCancelsDroppedQueued() + counts.twinCancelsDroppedQueued()).isEqualTo(cancelled);
            assertThat(counts.rootCancelsReceived() + counts.twinCancelsReceived()).isEqualTo(tasks);
        } finally {
            threads.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static Cancel twinCancel(long requestId) {
        return Cancel.newBuilder().setRequestId(requestId).setIfQueued(true).build();
    }

    /** Every frame sent so far, in order. */
    private List<Frame> answers() {
        channel.runPendingTasks();
        List<Frame> frames = new ArrayList<>();
        Object frame;
        while ((frame = channel.readOutbound()) != null) {
            frames.add((Frame) frame);
        }
        return frames;
    }

    /** A task whose work is counting that it ran. */
    private final class CountingTask extends LeafTask {
        final AtomicInteger executed = new AtomicInteger();

        CountingTask(long requestId) {
            super(requestId, 0, replies, context, ticker.nanoTime());
        }

        @Override
        Frame execute(long startNanos, long queueNanos) {
            executed.incrementAndGet();
            return Frame.newBuilder().setResult(SearchResponse.newBuilder().setRequestId(requestId()).setStatus(Status.OK)).build();
        }

        @Override
        int priority() {
            return 0;
        }

        @Override
        Frame refusal(Status status, String detail) {
            return Frame.newBuilder().setResult(SearchResponse.newBuilder().setRequestId(requestId()).setStatus(status)
                    .setError(detail)).build();
        }
    }
}
