package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that missed writes never becomes primary: not when the only in-sync replica goes down
 * and the stale one comes back (the partition refuses writes until the in-sync one is back), and not
 * after a root restart that reaches only the stale one. Real leaves over loopback, real Lucene.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PromotionTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int PARTITIONS = 2;
    /** How long a root started with a leaf down waits for its leaves. */
    private static final Duration RESTART_READY = Duration.ofSeconds(2);

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("promote", IndexConfig.defaults(), TestData.documents(3, 50))
                .leaves(2).partitions(PARTITIONS).replicas(2).http(0)
                .start();
    }

    /** Writes {@code count} documents; each partition's highest version. */
    private static Map<Integer, Long> write(DocumentWriter documents, String prefix, int count) {
        Map<Integer, Long> highest = new HashMap<>();
        for (int i = 0; i < count; i++) {
            DocumentResult result = documents.upsert(prefix + i, Map.of("title", "steppe " + i), WriteOptions.NONE)
                    .join();
            assertThat(result.outcome()).as(result.error()).isEqualTo(DocumentResult.Outcome.CREATED);
            highest.merge(documents.partitionOf(prefix + i), result.version(), Math::max);
        }
        return highest;
    }

    /**
     * Starts leaf {@code leaf} again on its port and its own live copies: the embedded leaves claimed
     * {@code node-auto-0}, {@code node-auto-1} in order, and a leaf started with none would claim the
     * first one free, which may be the other leaf's.
     */
    private static LeafServer restart(EmbeddedCluster cluster, int leaf, int port) throws Exception {
        return LeafServer.start(LeafConfig.defaults(cluster.index().dir()).withPort(port)
                .withLive(LiveSettings.defaults().withNodeId("auto-" + leaf)));
    }

    /** Waits until every partition takes writes again. */
    private static void awaitWritable(DocumentWriter documents) throws Exception {
        DocumentResult[] last = new DocumentResult[1];
        for (int p = 0; p < PARTITIONS; p++) {
            String id = PartitionIds.idIn(documents, p, "probe-");
            Await.until(() -> "writes taken again: " + last[0], PATIENCE, () -> {
                last[0] = documents.upsert(id, Map.of("title", "steppe"), WriteOptions.NONE).join();
                return last[0].outcome().succeeded();
            });
        }
    }

    @Test
    void aStaleReplicaIsNeverPromotedWhenTheOnlyInSyncReplicaIsDown(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            DocumentWriter documents = cluster.root().documents();
            write(documents, "both-", 6);
            LeafServer second = cluster.leaves().get(1);
            int secondPort = second.port();
            second.close();
            Map<Integer, Long> onFirstOnly = write(documents, "first-", 10);
            LeafServer first = cluster.leaves().get(0);
            int firstPort = first.port();
            first.close();

            try (LeafServer stale = restart(cluster, 1, secondPort)) {
                // Time for catch-ups (once a second) that would promote the stale replica.
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < 4; i++) {
                        String id = "while-down-" + round + "-" + i;
                        DocumentResult refused = documents.upsert(id, Map.of("title", "steppe"), WriteOptions.NONE)
                                .join();
                        assertThat(refused.outcome()).as("%s: %s, version %s", id, refused.error(), refused.version())
                                .isEqualTo(DocumentResult.Outcome.UNAVAILABLE);
                        assertThat(refused.error()).contains("partition " + documents.partitionOf(id));
                    }
                    Thread.sleep(600); // not coordination: gives the once-a-second catch-up its chance to run
                }
                try (LeafServer back = restart(cluster, 0, firstPort)) {
                    awaitWritable(documents);
                    for (int i = 0; i < 10; i++) {
                        String id = "after-" + i;
                        DocumentResult result = documents.upsert(id, Map.of("title", "steppe"), WriteOptions.NONE)
                                .join();
                        assertThat(result.version()).as("%s numbered above the acknowledged writes", id)
                                .isGreaterThan(onFirstOnly.getOrDefault(documents.partitionOf(id), 0L));
                    }
                    for (int i = 0; i < 10; i++) {
                        assertThat(documents.get("first-" + i).join().outcome()).isEqualTo(DocumentResult.Outcome.FOUND);
                    }
                }
            }
        }
    }

    @Test
    void aRootRestartedWithOnlyTheStaleReplicaReachableRefusesWritesUntilTheOtherAnswers(@TempDir Path data)
            throws Exception {
        try (EmbeddedCluster cluster = start(data)) {
            Map<Integer, Long> onFirstOnly;
            int firstPort = cluster.leaves().get(0).port();
            int secondPort = cluster.leaves().get(1).port();
            try (RootServer earlier = RootServer.start(cluster.root().cluster().config(), null, 0, PATIENCE)) {
                write(earlier.documents(), "both-", 6);
                cluster.leaves().get(1).close();
                onFirstOnly = write(earlier.documents(), "first-", 10);
            }
            cluster.leaves().get(0).close();
            // Leaf 0 stays down, so the start would wait out its whole ready timeout (and then the write
            // path's patience for it): a short one, then the wait for what the test needs, leaf 1 up.
            try (LeafServer stale = restart(cluster, 1, secondPort);
                    RootServer restarted = RootServer.start(cluster.root().cluster().config(), null, 0,
                            RESTART_READY)) {
                Await.until("the restarted root reaches the stale replica's leaf", PATIENCE,
                        () -> restarted.cluster().leaf(1).state() == LeafStatus.State.UP);
                Thread.sleep(2_000); // not coordination: gives the once-a-second catch-up its chance to promote
                DocumentWriter documents = restarted.documents();
                for (int i = 0; i < 6; i++) {
                    String id = "while-down-" + i;
                    DocumentResult refused = documents.upsert(id, Map.of("title", "steppe"), WriteOptions.NONE).join();
                    assertThat(refused.outcome()).as("%s: %s, version %s", id, refused.error(), refused.version())
                            .isEqualTo(DocumentResult.Outcome.UNAVAILABLE);
                    assertThat(refused.error()).contains("partition " + documents.partitionOf(id));
                }
                try (LeafServer back = restart(cluster, 0, firstPort)) {
                    awaitWritable(documents);
                    for (int i = 0; i < 10; i++) {
                        String id = "after-" + i;
                        DocumentResult result = documents.upsert(id, Map.of("title", "steppe"), WriteOptions.NONE)
                                .join();
                        assertThat(result.version()).as("%s numbered above the acknowledged writes", id)
                                .isGreaterThan(onFirstOnly.getOrDefault(documents.partitionOf(id), 0L));
                        assertThat(documents.get("first-" + i).join().outcome()).isEqualTo(DocumentResult.Outcome.FOUND);
                    }
                }
            }
        }
    }
}
