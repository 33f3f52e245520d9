package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
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

    private final ManualTicker ticker = new ManualTicker();
    private final LeafCounters counters = new LeafCounters();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OutboundBatcher replies = new OutboundBatcher(channel, 1);
    private SearchScheduler scheduler;
    private OpenPartitions partitions;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
    }

    @AfterEach
    void close() {
        if (scheduler != null) {
            scheduler.close();
        }
        if (partitions != null) {
            partitions.close();
        }
        channel.finishAndReleaseAll();
    }

    @Test
    void aSearchKnownCheapMayRunInlineOnlyWithTheSettingOnAndAHintBelowTheThreshold() throws IOException {
        LeafContext off = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000));
        assertThat(new SearchTask(search(1, 10), replies, off, 0).mayRunInline()).as("setting off").isFalse();
        close();

        LeafContext on = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000).withInlineCheap(true));
        assertThat(new SearchTask(search(2, 10), replies, on, 0).mayRunInline()).isTrue();
        assertThat(new SearchTask(search(3, 0), replies, on, 0).mayRunInline()).as("no hint: unknown").isFalse();
        assertThat(new SearchTask(search(4, 1_000_000), replies, on, 0).mayRunInline()).as("known expensive")
                .isFalse();
    }

    @Test
    void aSearchEstimatedCheapAnswersOnTheThreadThatRunsItInline() throws IOException {
        LeafContext leaf = leaf(SchedulingConfig.defaults().withExpensiveCost(1_000_000).withInlineCheap(true));

        new SearchTask(search(5, 10), replies, leaf, ticker.nanoTime()).runInline();

        SearchResponse answer = onlyAnswer();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getTotalHits()).isPositive();
        assertThat(answer.getCost().getExpensive()).isFalse();
    }

    @Test
    void aSearchEstimatedExpensiveLeavesTheInlineThreadForTheLane() throws Exception {
        // Every estimate is expensive here: the hint said cheap, the estimate disagrees.
        LeafContext leaf = leaf(SchedulingConfig.defaults().withExpensiveCost(1).withInlineCheap(true));

        new SearchTask(search(6, 10), replies, leaf, ticker.nanoTime()).runInline();
        // The lane runs its work in order: once a marker queued behind the search has run, it answered.
        CountDownLatch laneDone = new CountDownLatch(1);
        assertThat(scheduler.requeue(laneDone::countDown, Priority.INTERACTIVE_VALUE, true)).isTrue();
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
        IndexContext index = IndexContext.of(store, store.readManifest());
        partitions = new OpenPartitions(index, PartitionWarmer.paced(Duration.ZERO));
        assertThat(partitions.assign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).build()).getError()).isEmpty();
        scheduler = new SearchScheduler(1, scheduling, ticker);
        return new LeafContext(partitions, scheduler, new InflightTasks(ticker, counters, InstantSource.fixed(Instant.EPOCH)),
                ticker, new FaultControl(false, new FaultInjector(ticker, () -> 1), () -> { }), counters, null,
                Duration.ofMillis(1).toNanos(), QueryOfDeath.NONE, null, null);
    }

    private static SearchRequest search(long requestId, long costHint) {
        return SearchRequest.newBuilder().setRequestId(requestId).setPartition(0).setQuery("meadow hawthorn").setK(10)
                .setCostHint(costHint).build();
    }

    private SearchResponse onlyAnswer() {
        channel.runPendingTasks();
        Frame frame = channel.readOutbound();
        assertThat(frame).as("an answer").isNotNull();
        assertThat((Object) channel.readOutbound()).as("only one answer").isNull();
        return frame.getResult();
    }
}
