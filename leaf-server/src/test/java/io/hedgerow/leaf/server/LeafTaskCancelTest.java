package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A root's cancel against a sliced task that parks between slices, with the interleavings forced
 * by latches rather than hoped for: the task runs a slice on the scheduler's only worker, a
 * blocker queued behind it keeps its continuation waiting once it has yielded, and the cancel
 * pauses inside {@link LeafTask#cancel()} (at its test seam) while the worker parks the task.
 * Each test fixes one order of the two threads' steps and checks the one answer the task gives.
 */
class LeafTaskCancelTest {
    private static final long TIMEOUT_SECONDS = 30;

    private final ManualTicker ticker = new ManualTicker();
    private final LeafCounters counters = new LeafCounters();
    private final InflightTasks inflight = new InflightTasks(ticker, counters, InstantSource.fixed(Instant.EPOCH));
    private final SearchScheduler scheduler = new SearchScheduler(1, SchedulingConfig.defaults(), ticker);
    private final LeafContext context = new LeafContext(null, scheduler, inflight, ticker,
            new FaultControl(false, new FaultInjector(ticker, () -> 1), () -> { }), counters, null, 0,
            QueryOfDeath.NONE);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OutboundBatcher replies = new OutboundBatcher(channel, 1);

    @AfterEach
    void close() {
        scheduler.close();
        channel.finishAndReleaseAll();
    }

    @Test
    void aCancelDuringWhichTheTaskParksStillStopsIt() throws Exception {
        ParkingTask task = new ParkingTask(7);
        CountDownLatch blockerStarted = new CountDownLatch(1);
        CountDownLatch releaseBlocker = new CountDownLatch(1);
        start(task);
        // Queued behind the running slice: once the task yields, the worker takes this, not the continuation.
        assertThat(scheduler.trySubmit(blocker(blockerStarted, releaseBlocker))).isTrue();
        task.inWindow.set(new CountDownLatch(1));

        // The cancel finds the task running: too late to drop it, and it pauses in its window.
        CompletableFuture<LeafTask.CancelOutcome> outcome = CompletableFuture.supplyAsync(task::cancel);
        await(task.inWindow.get());
        // Meanwhile the worker ends its slice and parks the task: its continuation waits behind the blocker.
        task.mayYield.countDown();
        await(blockerStarted);
        task.mayLeaveWindow.countDown();

        assertThat(outcome.get(TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .as("the task parked inside the cancel's window: it is stopped, not missed")
                .isEqualTo(LeafTask.CancelOutcome.STOPPED_RUNNING);
        releaseBlocker.countDown();
        List<SearchResponse> answers = answersAfterTheWorkerIsIdle();
        assertThat(answers).singleElement().satisfies(answer -> {
            assertThat(answer.getStatus()).isEqualTo(Status.OK);
            assertThat(answer.getCutShort()).as("the continuation saw the stop at its first check").isTrue();
        });
        assertThat(task.slicesAfterTheYield).hasValue(1);
    }

    @Test
    void aCancelThatFindsTheTaskParkedDropsItsContinuation() throws Exception {
        ParkingTask task = new ParkingTask(8);
        CountDownLatch blockerStarted = new CountDownLatch(1);
        CountDownLatch releaseBlocker = new CountDownLatch(1);
        start(task);
        assertThat(scheduler.trySubmit(blocker(blockerStarted, releaseBlocker))).isTrue();
        task.mayYield.countDown();
        await(blockerStarted); // the task is parked, its continuation queued

        assertThat(task.cancel()).isEqualTo(LeafTask.CancelOutcome.DROPPED_QUEUED);
        releaseBlocker.countDown();

        List<SearchResponse> answers = answersAfterTheWorkerIsIdle();
        assertThat(answers).extracting(SearchResponse::getStatus).containsExactly(Status.CANCELLED);
        assertThat(task.slicesAfterTheYield).as("the continuation never ran").hasValue(0);
    }

    @Test
    void aCancelOfARunningTaskStopsItWhenItResumes() throws Exception {
        ParkingTask task = new ParkingTask(9);
        start(task);

        assertThat(task.cancel()).isEqualTo(LeafTask.CancelOutcome.STOPPED_RUNNING);
        task.mayYield.countDown();
        Eventually.await(() -> task.slicesAfterTheYield.get() == 1, "the continuation to run");

        List<SearchResponse> answers = answersAfterTheWorkerIsIdle();
        assertThat(answers).singleElement().extracting(SearchResponse::getCutShort).isEqualTo(true);
    }

    // ------------------------------------------------------------------ helpers

    /** Registers and queues the task, and waits until the worker runs its first slice. */
    private void start(ParkingTask task) throws InterruptedException {
        assertThat(inflight.register(task, false)).isTrue();
        assertThat(scheduler.trySubmit(task)).isTrue();
        await(task.running);
    }

    private static Runnable blocker(CountDownLatch started, CountDownLatch release) {
        return () -> {
            started.countDown();
            try {
                release.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /**
     * The answers so far, read once the worker has run everything queued before a sentinel (the one
     * worker runs its class in queue order, so whatever was queued or running sent its answer by then).
     */
    private List<SearchResponse> answersAfterTheWorkerIsIdle() throws InterruptedException {
        CountDownLatch idle = new CountDownLatch(1);
        // As a continuation: behind the fresh work of its class and the continuations queued before it
        // (fresh work now goes ahead of continuations, so a fresh marker could overtake the task's).
        assertThat(scheduler.requeue(idle::countDown, Priority.INTERACTIVE_VALUE)).isTrue();
        await(idle);
        channel.runPendingTasks();
        List<SearchResponse> answers = new ArrayList<>();
        Object frame;
        while ((frame = channel.readOutbound()) != null) {
            answers.add(((Frame) frame).getResult());
        }
        return answers;
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("a latch the other thread opens").isTrue();
    }

    /**
     * A sliced search in miniature: its first slice waits for the test, then yields; its second
     * slice answers at once, cut short if a stop was asked for by then.
     */
    private final class ParkingTask extends LeafTask {
        final CountDownLatch running = new CountDownLatch(1);
        final CountDownLatch mayYield = new CountDownLatch(1);
        final AtomicReference<CountDownLatch> inWindow = new AtomicReference<>();
        final CountDownLatch mayLeaveWindow = new CountDownLatch(1);
        final AtomicInteger slicesAfterTheYield = new AtomicInteger();

        ParkingTask(long requestId) {
            super(requestId, 0, replies, context, ticker.nanoTime());
        }

        @Override
        Frame execute(long startNanos, long queueNanos) {
            running.countDown();
            try {
                mayYield.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return yieldWorker(false) ? null : answer(false);
        }

        @Override
        Frame proceed() {
            slicesAfterTheYield.incrementAndGet();
            return answer(stopRequested());
        }

        @Override
        void afterParkedCheck() {
            CountDownLatch window = inWindow.get();
            if (window == null) {
                return;
            }
            window.countDown();
            try {
                mayLeaveWindow.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private Frame answer(boolean cutShort) {
            return Frame.newBuilder().setResult(SearchResponse.newBuilder().setRequestId(requestId())
                    .setStatus(Status.OK).setCutShort(cutShort)).build();
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
