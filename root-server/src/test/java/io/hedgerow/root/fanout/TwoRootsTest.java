package io.hedgerow.root.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two roots on the same leaves, each with one event loop, so they hand out the very same request
 * ids in the same order: the leaves tell their requests apart by root id, including the
 * leaf-to-leaf cancels of tied requests, and both roots get every answer in full.
 */
class TwoRootsTest {
    @TempDir
    Path dataDir;

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void twoRootsGivingTheSameRequestIdsBothGetEveryAnswer() throws Exception {
        PartitionStore store = new PartitionStore(dataDir.resolve("two-roots"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(4), IndexProgress.none())
                .build(store, "two-roots", IndexConfig.defaults(), TestData.documents(7, 200));
        List<String> leaves = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1));
            started.add(leaf);
            leaves.add(leaf.address());
        }
        ClusterConfig config = ClusterConfig.of(store.readManifest(), leaves, 2).withIoThreads(1);
        RootServer first = start(config);
        RootServer second = start(config);
        assertThat(first.cluster().rootId()).isNotEqualTo(second.cluster().rootId());

        String[] words = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
        for (int round = 0; round < 40; round++) {
            SearchRequest request = SearchRequest.builder(words[round % words.length] + " " + words[(round * 3) % words.length])
                    .hedge(round % 2 == 0 ? HedgeMode.TIED : HedgeMode.OFF).k(5).timeoutMillis(10_000).build();
            CompletableFuture<SearchResult> fromFirst = first.client().search(request);
            CompletableFuture<SearchResult> fromSecond = second.client().search(request);
            SearchResult a = fromFirst.join();
            SearchResult b = fromSecond.join();
            assertThat(a.tainted()).as("round %d, first root: %s", round, a.errors()).isFalse();
            assertThat(b.tainted()).as("round %d, second root: %s", round, b.errors()).isFalse();
            assertThat(b.hits().stream().map(Hit::id).toList()).as("round %d", round)
                    .isEqualTo(a.hits().stream().map(Hit::id).toList());
            assertThat(b.totalHits()).isEqualTo(a.totalHits());
        }
    }

    private RootServer start(ClusterConfig config) throws IOException, InterruptedException {
        RootServer root = RootServer.start(config, null, 0, Duration.ofSeconds(30));
        started.add(root);
        return root;
    }
}
