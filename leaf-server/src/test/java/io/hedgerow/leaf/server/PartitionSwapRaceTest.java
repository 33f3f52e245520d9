package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refresh that publishes a newer searcher of a partition ({@link OpenPartitions#replace}) while a
 * search or a fetch has looked the partition up but not yet pinned it: the old searcher closes in
 * between, and the task must pin the newer one, not answer NOT_ASSIGNED (which makes the root count
 * the whole leaf failed). The race is forced at the lookup seam, not hoped for: the first lookup of
 * the partition publishes a fresh searcher before the task pins what it found.
 */
@Timeout(60)
class PartitionSwapRaceTest {
    private static final String INDEX = "swap";

    @TempDir
    static Path dir;

    private static PartitionStore store;

    private final ManualTicker ticker = new ManualTicker();
    private final LeafCounters counters = new LeafCounters();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OutboundBatcher replies = new OutboundBatcher(channel, 1);
    private final AtomicInteger swaps = new AtomicInteger();
    private SearchScheduler scheduler;
    private OpenPartitions partitions;
    private LeafContext leaf;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
    }

    @BeforeEach
    void open() throws IOException {
        IndexContext index = IndexContext.of(store, store.readManifest());
        partitions = new OpenPartitions(index, PartitionWarmer.paced(Duration.ZERO));
        assertThat(partitions.assign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).build()).getError()).isEmpty();
        scheduler = new SearchScheduler(1, SchedulingConfig.defaults(), ticker);
        leaf = new LeafContext(partitions, scheduler, new InflightTasks(ticker, counters, InstantSource.fixed(Instant.EPOCH)),
                ticker, new FaultControl(false, new FaultInjector(ticker, () -> 1), () -> { }), counters, null, 0,
                QueryOfDeath.NONE, null, null);
        // The first lookup of the partition races a refresh: a newer searcher replaces (and closes) the one found.
        partitions.afterLookup(partition -> {
            if (swaps.getAndIncrement() == 0) {
                try {
                    partitions.replace(partition, PartitionSearcher.open(index, partition));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
    }

    @AfterEach
    void close() {
        scheduler.close();
        partitions.close();
        channel.finishAndReleaseAll();
    }

    @Test
    void aSearchWhosePartitionIsReplacedBeforeItPinsItSearchesTheNewerSearcher() {
        SearchRequest request = SearchRequest.newBuilder().setRequestId(7).setPartition(0).setQuery("meadow").setK(10)
                .build();

        new SearchTask(request, replies, leaf, ticker.nanoTime()).run();

        SearchResponse answer = onlyAnswer().getResult();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getTotalHits()).isPositive();
        assertThat(swaps.get()).as("the refresh raced the lookup").isGreaterThanOrEqualTo(1);
    }

    @Test
    void aFetchWhosePartitionIsReplacedBeforeItPinsItFetchesFromTheNewerSearcher() {
        FetchRequest request = FetchRequest.newBuilder().setRequestId(8).setQuery("meadow").setStoredFields(true)
                .addItems(FetchItem.newBuilder().setPartition(0).setId("doc-0")).build();

        new FetchTask(request, replies, leaf, ticker.nanoTime()).run();

        FetchResponse answer = onlyAnswer().getFetchResult();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getDocsList()).singleElement().satisfies(doc -> assertThat(doc.getId()).isEqualTo("doc-0"));
    }

    private Frame onlyAnswer() {
        channel.runPendingTasks();
        Frame frame = channel.readOutbound();
        assertThat(frame).as("an answer").isNotNull();
        assertThat((Object) channel.readOutbound()).as("only one answer").isNull();
        return frame;
    }
}
