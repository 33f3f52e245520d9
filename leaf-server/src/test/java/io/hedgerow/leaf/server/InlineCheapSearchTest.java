package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The experimental inline path ({@code --inline-cheap}): a search run on the thread that read it (an
 * event loop in the leaf, the test's thread here) answers there if its estimate says cheap, and
 * moves to the expensive lane before it is set up if its estimate says expensive, so nothing
 * expensive runs on an event loop.
 */
@Timeout(60)
class InlineCheapSearchTest {
    private static final String INDEX = "inline";

    @TempDir
    static Path dir;

    private static PartitionStore store;

    private final OnePartitionLeaf leaf = new OnePartitionLeaf(store, INDEX);

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
    }

    @AfterEach
    void close() {
        leaf.close();
    }

    @Test
    void aSearchKnownCheapMayRunInlineOnlyWithTheSettingOnAndAHintBelowTheThreshold() throws IOException {
        LeafContext off = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000));
        assertThat(new SearchTask(search(1, 10), leaf.replies, off, 0).mayRunInline()).as("setting off").isFalse();

        LeafContext on = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000).withInlineCheap(true));
        assertThat(new SearchTask(search(2, 10), leaf.replies, on, 0).mayRunInline()).isTrue();
        assertThat(new SearchTask(search(3, 0), leaf.replies, on, 0).mayRunInline()).as("no hint: unknown").isFalse();
        assertThat(new SearchTask(search(4, 1_000_000), leaf.replies, on, 0).mayRunInline()).as("known expensive")
                .isFalse();
    }

    @Test
    void aSearchEstimatedCheapAnswersOnTheThreadThatRunsItInline() throws IOException {
        LeafContext context = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000).withInlineCheap(true));

        new SearchTask(search(5, 10), leaf.replies, context, leaf.ticker.nanoTime()).runInline();

        SearchResponse answer = onlyAnswer();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getTotalHits()).isPositive();
        assertThat(answer.getCost().getExpensive()).isFalse();
    }

    @Test
    void aSearchEstimatedExpensiveLeavesTheInlineThreadForTheLane() throws Exception {
        // Every estimate is expensive here: the hint said cheap, the estimate disagrees.
        LeafContext context = leaf(SchedulingConfig.defaults().withExpensiveCost(1).withInlineCheap(true));

        new SearchTask(search(6, 10), leaf.replies, context, leaf.ticker.nanoTime()).runInline();
        // The lane runs its work in order: once a marker queued behind the search has run, it answered.
        CountDownLatch laneDone = new CountDownLatch(1);
        assertThat(leaf.scheduler().requeue(laneDone::countDown, Priority.INTERACTIVE_VALUE, true)).isTrue();
        assertThat(laneDone.await(30, TimeUnit.SECONDS)).as("the lane ran").isTrue();

        SearchResponse answer = onlyAnswer();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getCost().getExpensive()).isTrue();
        assertThat(answer.getCost().getSlices()).as("one stretch inline (the estimate), then the lane's").isEqualTo(2);
    }

    @Test
    void aLeafWithTheSettingOnAnswersKnownCheapSearchesOverItsSocket() throws IOException {
        List<Socket> opened = new ArrayList<>();
        LeafServer server = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1)
                .withScheduling(SchedulingConfig.defaults().withExpensiveCost(1_000_000).withInlineCheap(true)));
        try {
            FrameSocket root = TestLeaves.root(server, opened, 1, INDEX, 1);
            for (long id = 10; id < 20; id++) {
                root.send(Frame.newBuilder().setSearch(search(id, 10)).build());
                SearchResponse answer = root.receive().getResult();
                assertThat(answer.getRequestId()).isEqualTo(id);
                assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
                assertThat(answer.getTotalHits()).isPositive();
            }
        } finally {
            for (Socket socket : opened) {
                socket.close();
            }
            server.close();
        }
    }

    private LeafContext leaf(SchedulingConfig scheduling) throws IOException {
        return leaf.start(scheduling, Duration.ofMillis(1).toNanos());
    }

    private static SearchRequest search(long requestId, long costHint) {
        return SearchRequest.newBuilder().setRequestId(requestId).setPartition(0).setQuery("meadow hawthorn").setK(10)
                .setCostHint(costHint).build();
    }

    private SearchResponse onlyAnswer() {
        return leaf.onlyAnswer().getResult();
    }
}
