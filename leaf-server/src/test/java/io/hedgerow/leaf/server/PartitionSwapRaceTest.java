package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
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

    private final OnePartitionLeaf leaf = new OnePartitionLeaf(store, INDEX);
    private final AtomicInteger swaps = new AtomicInteger();
    private LeafContext context;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
    }

    @BeforeEach
    void open() throws IOException {
        context = leaf.start(SchedulingConfig.defaults(), 0);
        OpenPartitions partitions = leaf.partitions();
        IndexContext index = leaf.index();
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
        leaf.close();
    }

    @Test
    void aSearchWhosePartitionIsReplacedBeforeItPinsItSearchesTheNewerSearcher() {
        SearchRequest request = SearchRequest.newBuilder().setRequestId(7).setPartition(0).setQuery("meadow").setK(10)
                .build();

        new SearchTask(request, leaf.replies, context, leaf.ticker.nanoTime()).run();

        SearchResponse answer = leaf.onlyAnswer().getResult();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getTotalHits()).isPositive();
        assertThat(swaps.get()).as("the refresh raced the lookup").isGreaterThanOrEqualTo(1);
    }

    @Test
    void aFetchWhosePartitionIsReplacedBeforeItPinsItFetchesFromTheNewerSearcher() {
        FetchRequest request = FetchRequest.newBuilder().setRequestId(8).setQuery("meadow").setStoredFields(true)
                .addItems(FetchItem.newBuilder().setPartition(0).setId("doc-0")).build();

        new FetchTask(request, leaf.replies, context, leaf.ticker.nanoTime()).run();

        FetchResponse answer = leaf.onlyAnswer().getFetchResult();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        assertThat(answer.getDocsList()).singleElement().satisfies(doc -> assertThat(doc.getId()).isEqualTo("doc-0"));
    }
}
