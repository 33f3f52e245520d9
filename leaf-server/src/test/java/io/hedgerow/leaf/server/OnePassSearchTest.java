package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A search pays for slicing only when it is expected to be long: one estimated cheap runs in one
 * pass and reads its worker's CPU clock twice (as its service starts and as it answers), where a
 * sliced one reads it at the edges of its slices and windows too. Counted on a work clock that counts
 * the search worker's readings; the search runs between two marker tasks on the only search worker,
 * so the readings between the markers are the search's.
 */
@Timeout(60)
class OnePassSearchTest {
    private static final String INDEX = "one-pass";
    private static final long SLICE_NANOS = Duration.ofMillis(1).toNanos();

    @TempDir
    static Path dir;

    private static PartitionStore store;

    private final OnePartitionLeaf leaf = new OnePartitionLeaf(store, INDEX);
    private final AtomicLong workerReadings = new AtomicLong();
    /** Counts the readings of the search worker only: the lane's worker reads it on its own thread. */
    private final Ticker countingClock = () -> {
        if (Thread.currentThread().getName().equals("leaf-worker-0")) {
            workerReadings.incrementAndGet();
        }
        return System.nanoTime();
    };

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
    }

    @AfterEach
    void close() {
        leaf.close();
    }

    @Test
    void withLanesASearchEstimatedCheapRunsInOnePassReadingTheClockTwice() throws Exception {
        LeafContext context = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000), SLICE_NANOS);

        long readings = readingsOf(new SearchTask(search(1), leaf.replies, context, leaf.ticker.nanoTime()));

        SearchResponse answer = onlyAnswer();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getTotalHits()).isPositive();
        assertThat(answer.getCost().getExpensive()).isFalse();
        assertThat(answer.getCost().getSlices()).isEqualTo(1);
        assertThat(readings).as("work-clock readings of a cheap search").isEqualTo(2);
    }

    @Test
    void withSlicingOffASearchReadsTheClockTwice() throws Exception {
        LeafContext context = leaf(SchedulingConfig.defaults(), 0);

        long readings = readingsOf(new SearchTask(search(2), leaf.replies, context, leaf.ticker.nanoTime()));

        assertThat(onlyAnswer().getStatus()).isEqualTo(Status.OK);
        assertThat(readings).as("work-clock readings of an unsliced search").isEqualTo(2);
    }

    @Test
    void withLanesOffASlicedSearchStillReadsTheClockAtItsSlicesAndWindows() throws Exception {
        // A slice long enough for the whole search, so it does not yield to the marker behind it.
        LeafContext context = leaf(SchedulingConfig.defaults(), Duration.ofSeconds(10).toNanos());

        long readings = readingsOf(new SearchTask(search(3), leaf.replies, context, leaf.ticker.nanoTime()));

        assertThat(onlyAnswer().getStatus()).isEqualTo(Status.OK);
        assertThat(readings).as("the counting sees a sliced search's readings").isGreaterThan(2);
    }

    private LeafContext leaf(SchedulingConfig scheduling, long sliceNanos) throws IOException {
        return leaf.start(scheduling, sliceNanos, countingClock);
    }

    private static SearchRequest search(long requestId) {
        return SearchRequest.newBuilder().setRequestId(requestId).setPartition(0).setQuery("meadow hawthorn").setK(10)
                .build();
    }

    /** The search worker's readings of the work clock while it ran {@code task}. */
    private long readingsOf(SearchTask task) throws InterruptedException {
        AtomicLong before = new AtomicLong();
        AtomicLong after = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        assertThat(leaf.scheduler().trySubmit(() -> before.set(workerReadings.get()))).isTrue();
        assertThat(leaf.scheduler().trySubmit(task)).isTrue();
        assertThat(leaf.scheduler().trySubmit(() -> {
            after.set(workerReadings.get());
            done.countDown();
        })).isTrue();
        assertThat(done.await(30, TimeUnit.SECONDS)).as("the tasks ran").isTrue();
        // The markers are not leaf tasks: they read no work clock of their own.
        return after.get() - before.get();
    }

    private SearchResponse onlyAnswer() {
        return leaf.onlyAnswer().getResult();
    }
}
