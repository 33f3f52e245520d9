package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.PartitionIds;
import io.hedgerow.root.write.WriteSettings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica paused with SIGSTOP (a real leaf process) does not hold writes: a bulk of 20 and single
 * writes after it are answered (the paused replica leaves the in-sync set and the others take them),
 * and once resumed it catches up. The old write path left such writes unanswered for over 90 s.
 *
 * <p>The bounds come from the root's write settings ({@link WriteSettings#defaults}, which the root
 * runs with): the write path answers a write within the replica timeout plus a catch-up step of one
 * second at most. The bulk, whose first batch waits the replica timeout before the paused replica
 * leaves, gets {@link #BULK_TIMEOUTS} of them; a single write after it left waits for nothing of it
 * (milliseconds), and gets {@link #SINGLE_TIMEOUTS}: generous for a loaded machine, and still
 * failing on a write that is never answered, or waits for the paused replica more than once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LocalPausedReplicaWriteTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration REPLICA_TIMEOUT = WriteSettings.defaults().timeout();
    private static final int BULK_TIMEOUTS = 6;
    private static final int SINGLE_TIMEOUTS = 2;

    @Test
    void writesAreAnsweredWhileAReplicaIsPausedAndItLeavesTheInSyncSet(@TempDir Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("pause"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(4), IndexProgress.none())
                .build(index, "pause", IndexConfig.defaults(), TestData.documents(5, 100));
        LocalClusterOptions options = new LocalClusterOptions(index.dir(), 2, 2, "127.0.0.1", 0,
                new RunDirectory(data.resolve("run")),
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"),
                        System.getProperty("java.class.path"), "256m"),
                PATIENCE, false, Duration.ZERO, HedgeSettings.defaults(), TailSettings.defaults(), 0);
        try (LocalCluster cluster = LocalCluster.start(options, new PrintStream(PrintStream.nullOutputStream()))) {
            DocumentWriter documents = cluster.root().documents();
            for (int i = 0; i < 8; i++) {
                assertThat(documents.upsert("before-" + i, Map.of("title", "taiga"), DocumentWriter.WriteOptions.NONE)
                        .join().outcome()).isEqualTo(DocumentResult.Outcome.CREATED);
            }
            long pid = cluster.leafProcess(1).pid();
            signal("STOP", pid);
            try {
                List<CompletableFuture<DocumentResult>> bulk = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    bulk.add(documents.upsert("paused-" + i, Map.of("title", "taiga " + i),
                            DocumentWriter.WriteOptions.NONE));
                }
                for (CompletableFuture<DocumentResult> write : bulk) {
                    DocumentResult result = write.get(REPLICA_TIMEOUT.multipliedBy(BULK_TIMEOUTS).toMillis(),
                            TimeUnit.MILLISECONDS);
                    assertThat(result.outcome()).as(result.error()).isEqualTo(DocumentResult.Outcome.CREATED);
                }
                for (int p = 0; p < 4; p++) {
                    // One in each partition, so that every partition is written while paused.
                    String id = PartitionIds.idIn(documents, p, "single-");
                    DocumentResult single = documents.upsert(id, Map.of("title", "taiga"), DocumentWriter.WriteOptions.NONE)
                            .get(REPLICA_TIMEOUT.multipliedBy(SINGLE_TIMEOUTS).toMillis(), TimeUnit.MILLISECONDS);
                    assertThat(single.outcome()).as(single.error()).isEqualTo(DocumentResult.Outcome.CREATED);
                }
                assertThat(IntStream.range(0, 4).map(documents::inSyncReplicas).boxed().toList())
                        .as("the paused replica left every partition's in-sync set").containsOnly(1);
            } finally {
                signal("CONT", pid);
            }
            Await.until("the resumed replica catches up", PATIENCE,
                    () -> IntStream.range(0, 4).map(documents::inSyncReplicas).allMatch(n -> n == 2));
        }
    }

    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %s", name, pid).isZero();
    }
}
