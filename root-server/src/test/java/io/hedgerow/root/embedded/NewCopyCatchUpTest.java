package io.hedgerow.root.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.hedgerow.root.write.DocumentWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy added to a partition that takes live writes catches up before it serves, and then holds
 * every acknowledged write: real leaves over loopback, real Lucene. Three leaves, one partition on
 * leaves 0 and 1; writes stream all along. Leaf 1 goes; after the grace its copy is re-replicated on
 * leaf 2, opened from the build, while the writes go on with leaf 0 alone. The leaves commit every
 * 100 ms, so leaf 0's log no longer reaches back to the build and the new copy must start from a
 * snapshot of leaf 0's copy, then replay its log above it. Once the copy serves, the writes stop and
 * leaf 0 goes too: leaf 2 alone must answer with every document that was acknowledged.
 */
class NewCopyCatchUpTest {
    /** Deadlines, not timing claims: generous, so a loaded 2-core machine does not fail them. */
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final LiveSettings LIVE = LiveSettings.defaults().withCommitInterval(Duration.ofMillis(100));
    private static final int BUILT = 120;

    @Test
    void aCopyAddedWhileWritesFlowServesOnlyOnceCaughtUpAndLosesNothingAcknowledged(@TempDir Path data)
            throws Exception {
        PlacementSettings placement = PlacementSettings.defaults().withGrace(Duration.ofMillis(500));
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("newcopy", IndexConfig.defaults(), TestData.documents(17, BUILT))
                .leaves(3).partitions(1).replicas(2).placement(placement)
                .leafSettings(leaf -> leaf.withLive(LIVE))
                .start()) {
            ClusterState state = cluster.root().cluster();
            DocumentWriter documents = cluster.root().documents();
            assertThat(state.assignment().replicasOf(0)).containsExactly(0, 1);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 50; i++) {
                write(documents, "before-" + i, acknowledged);
            }
            // Leaf 0 commits every 100 ms and then trims its log below what both replicas hold.
            Thread.sleep(500);

            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger whileAdding = new AtomicInteger();
            AtomicBoolean adding = new AtomicBoolean(false);
            Thread writer = Thread.ofPlatform().name("test-writer").start(() -> {
                for (int i = 0; writing.get(); i++) {
                    if (write(documents, "during-" + i, acknowledged) && adding.get()) {
                        whileAdding.incrementAndGet();
                    }
                }
            });
            try {
                cluster.leaves().get(1).close();
                adding.set(true);
                Await.until("leaf 2's new copy serves", PATIENCE, () -> contains(state.assignment().replicasOf(0), 2));
                assertThat(documents.caughtUp(0, 2)).as("in sync when it began to serve").isTrue();
                adding.set(false);
                Await.until("some more writes with the new copy in sync", PATIENCE, () -> acknowledged.size() > 50 + whileAdding.get() + 20);
            } finally {
                writing.set(false);
                writer.join();
            }
            assertThat(whileAdding.get()).as("writes acknowledged while the copy was added").isPositive();
            assertThat(cluster.root().metrics().registry().get("hedgerow.write.snapshot.restores").counter().count())
                    .as("the new copy started from a snapshot: the primary's log no longer reached the build")
                    .isGreaterThanOrEqualTo(1);

            cluster.leaves().get(0).close();
            Await.until("leaf 0 seen down", PATIENCE, () -> state.leaf(0).readyConnections() == 0);
            DocumentResult after = documents.upsert("after", Map.of("title", "zephyr"), new WriteOptions(0, true)).join();
            assertThat(after.outcome()).as("writes go on with the new copy as primary")
                    .isEqualTo(DocumentResult.Outcome.CREATED);

            SearchResult written = search(cluster, "zephyr", 1000);
            assertThat(written.tainted()).as("leaf 2 answers the partition").isFalse();
            assertThat(written.totalHits().value()).as("every acknowledged write, from the new copy alone")
                    .isEqualTo(acknowledged.size() + 1);
            assertThat(written.hits()).extracting(io.hedgerow.api.Hit::id)
                    .allSatisfy(id -> assertThat(id.equals("after") || acknowledged.contains(id)).as(id).isTrue());
            for (String id : acknowledged) {
                assertThat(documents.get(id).join().outcome()).as(id).isEqualTo(DocumentResult.Outcome.FOUND);
            }
            SearchResult built = search(cluster, "alpha OR bravo OR charlie OR delta OR echo OR foxtrot OR golf OR hotel"
                    + " OR india OR juliet OR kilo OR lima OR mike OR november OR oscar OR papa OR quebec OR romeo"
                    + " OR sierra OR tango", 10);
            assertThat(built.totalHits().value()).as("the built documents too").isEqualTo(BUILT);
        }
    }

    /** Writes a document titled "zephyr"; records it when acknowledged. */
    private static boolean write(DocumentWriter documents, String id, Set<String> acknowledged) {
        DocumentResult result = documents.upsert(id, Map.of("title", "zephyr " + id, "body", "zephyr"),
                WriteOptions.NONE).join();
        if (result.outcome().succeeded()) {
            acknowledged.add(id);
            return true;
        }
        return false;
    }

    private static SearchResult search(EmbeddedCluster cluster, String query, int k) {
        return cluster.client().search(SearchRequest.builder(query).k(k).exactTotalHits().build()).join();
    }

    private static boolean contains(int[] values, int value) {
        return Arrays.stream(values).anyMatch(v -> v == value);
    }
}
