package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Hit;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.TestData;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica killed (SIGKILL) in the middle of a stream of writes, and started again, catches up
 * and then serves every acknowledged document by itself: leaves are real child JVMs.
 */
class LocalIngestionKillTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @Test
    void aReplicaKilledMidStreamCatchesUpAndServesEveryAcknowledgedDocument(@TempDir Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("kill"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(4), IndexProgress.none())
                .build(index, "kill", IndexConfig.defaults(), TestData.documents(5, 200));
        LocalClusterOptions options = new LocalClusterOptions(index.dir(), 2, 2, "127.0.0.1", 0,
                new RunDirectory(data.resolve("run")),
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"),
                        System.getProperty("java.class.path"), "256m"),
                PATIENCE, false, Duration.ZERO, HedgeSettings.defaults(), TailSettings.defaults(), 0);
        try (LocalCluster cluster = LocalCluster.start(options, new PrintStream(PrintStream.nullOutputStream()))) {
            DocumentWriter documents = cluster.root().documents();
            List<CompletableFuture<DocumentResult>> writes = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                if (i == 100) {
                    cluster.killLeaf(1);
                }
                if (i == 200) {
                    cluster.restartLeaf(1);
                }
                writes.add(documents.upsert("stream-" + i, Map.of("title", "okavango " + i, "body", "okavango delta"),
                        DocumentWriter.WriteOptions.NONE));
                if (i % 10 == 9) {
                    writes.get(i).join(); // a stream, not one burst
                }
            }
            Set<String> acknowledged = new HashSet<>();
            for (CompletableFuture<DocumentResult> write : writes) {
                DocumentResult result = write.join();
                if (result.outcome().succeeded()) {
                    acknowledged.add(result.id());
                }
            }
            assertThat(acknowledged).as("one replica up is enough to write").hasSize(300);

            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (IntStream.range(0, 4).map(documents::inSyncReplicas).anyMatch(n -> n < 2)) {
                assertThat(System.nanoTime() - deadline).as("the restarted replica catches up").isNegative();
                Thread.sleep(50);
            }
            cluster.killLeaf(0);

            // The writes reach the restarted leaf over its own link at once; the search connection
            // comes back after its reconnection backoff, so until then no replica may answer at all.
            deadline = System.nanoTime() + PATIENCE.toNanos();
            while (true) {
                String outcome;
                try {
                    SearchResult result = cluster.client().search(SearchRequest.builder("okavango").k(1000)
                            .exactTotalHits().build()).join();
                    Set<String> found = new HashSet<>(result.hits().stream().map(Hit::id).toList());
                    if (!result.tainted() && found.containsAll(acknowledged)) {
                        break;
                    }
                    outcome = "found " + found.size() + " of " + acknowledged.size()
                            + (result.tainted() ? ", tainted" : "");
                } catch (CompletionException e) {
                    outcome = "failed: " + e.getCause().getMessage();
                }
                assertThat(System.nanoTime() - deadline).as("leaf 1 alone serves everything; last search %s",
                        outcome).isNegative();
                Thread.sleep(100);
            }
        }
    }
}
