package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.CuratorClusterStore;
import io.hedgerow.coordination.EmbeddedZooKeeper;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.Await;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.netty.channel.EventLoopGroup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roots that keep each partition's primary, term and in-sync set in ZooKeeper ({@code --zk}): a
 * restarted root trusts the stored in-sync set, not whichever replica answers, and refuses writes
 * rather than promote a copy outside it; two roots on one ZooKeeper never acknowledge a write on the
 * deposed primary's term, as the leaves refuse it. A real embedded ZooKeeper, real leaves over
 * loopback, real Lucene; one partition on two leaves.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StoredStateWritesTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static EmbeddedCluster start(Path data) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("stored", IndexConfig.defaults(), TestData.documents(3, 30))
                .leaves(2).partitions(1).replicas(2)
                .start();
    }

    private static WriteSettings stored(EmbeddedZooKeeper zk) {
        return WriteSettings.defaults().withCoordination(CoordinationSettings.of(zk.connectString(), "stored"));
    }

    /**
     * As {@link #stored}, with short ZooKeeper timeouts: a call to a stopped ensemble fails after
     * about two connection timeouts (6 s each at the defaults, and the refused write makes two).
     */
    private static WriteSettings storedImpatient(EmbeddedZooKeeper zk) {
        return WriteSettings.defaults().withCoordination(CoordinationSettings.of(zk.connectString(), "stored")
                .withSessionTimeout(Duration.ofSeconds(2)).withConnectionTimeout(Duration.ofSeconds(1)));
    }

    /** How long a root's start waits for its leaves: short, as some tests start one with a leaf down. */
    private static final Duration READY = Duration.ofSeconds(3);

    private static RootServer root(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return RootServer.start(config, null, READY, null, ClusterState.randomRootId(), stored(zk));
    }

    /** As {@link #root}, serving its HTTP API on a free port. */
    private static RootServer rootWithHttp(ClusterConfig config, EmbeddedZooKeeper zk) throws Exception {
        return RootServer.start(config, HttpSettings.defaults("127.0.0.1", 0), READY, null,
                ClusterState.randomRootId(), stored(zk));
    }

    /** Writes {@code count} documents, each acknowledged; the highest version. */
    private static long write(DocumentWriter documents, String prefix, int count) {
        long highest = 0;
        for (int i = 0; i < count; i++) {
            DocumentResult result = documents.upsert(prefix + i, Map.of("title", "sedge " + i), WriteOptions.NONE)
                    .join();
            assertThat(result.outcome()).as("%s%s: %s", prefix, i, result.error())
                    .isEqualTo(DocumentResult.Outcome.CREATED);
            highest = Math.max(highest, result.version());
        }
        return highest;
    }

    /**
     * Leaf {@code leaf} again on its port and its own live copies (the embedded leaves claimed
     * node-auto-0, -1), with the cluster's secret: a copy restored from a snapshot dials the other
     * leaf for it, which refuses a leaf without the secret.
     */
    private static LeafServer restart(EmbeddedCluster cluster, int leaf, int port) throws Exception {
        return LeafServer.start(LeafConfig.defaults(cluster.index().dir()).withPort(port)
                .withClusterSecret(cluster.root().cluster().config().clusterSecret())
                .withLive(LiveSettings.defaults().withNodeId("auto-" + leaf)));
    }

    private static String address(int port) {
        return "127.0.0.1:" + port;
    }

    private static PartitionState storedState(EmbeddedZooKeeper zk) throws Exception {
        try (CoordinationClient client = CoordinationClient.connect(CoordinationSettings.of(zk.connectString(),
                "stored"))) {
            return new CuratorClusterStore(client).read(0).orElseThrow();
        }
    }

    @Test
    void aRestartedRootRefusesWritesRatherThanPromoteAReachableReplicaOutsideTheStoredInSyncSet(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data)) {
            ClusterConfig config = cluster.root().cluster().config();
            int firstPort = cluster.leaves().get(0).port();
            int secondPort = cluster.leaves().get(1).port();
            long acknowledged;
            try (RootServer earlier = root(config, zk)) {
                write(earlier.documents(), "both-", 5);
                cluster.leaves().get(1).close();
                acknowledged = write(earlier.documents(), "first-", 10);
            }
            PartitionState state = storedState(zk);
            NodeId first = StoredState.nodeOf(LeafAddress.parse(address(firstPort)));
            assertThat(state.inSync()).as("the replica that missed writes left the stored set before they were"
                    + " acknowledged").containsExactly(first);
            cluster.leaves().get(0).close();

            // Only the stale replica is up, and the restarted root is given only its leaf: without the stored set
            // it would take that replica for in sync and number new writes over the acknowledged ones.
            ClusterConfig staleOnly = ClusterConfig.of(cluster.manifest(), List.of(address(secondPort)), 1);
            try (LeafServer stale = restart(cluster, 1, secondPort)) {
                try (RootServer restarted = rootWithHttp(staleOnly, zk)) {
                    HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + restarted.httpPort() + "/documents/over-http"))
                            .header("Content-Type", "application/json")
                            .PUT(HttpRequest.BodyPublishers.ofString("{\"title\": \"sedge\"}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
                    assertThat(answer.body()).contains("\"result\":\"unavailable\"").contains("partition 0")
                            .contains(first.value());
                    for (int i = 0; i < 5; i++) {
                        DocumentResult refused = restarted.documents()
                                .upsert("while-stale-" + i, Map.of("title", "sedge"), WriteOptions.NONE).join();
                        assertThat(refused.outcome()).as("%s, version %s", refused.error(), refused.version())
                                .isEqualTo(DocumentResult.Outcome.UNAVAILABLE);
                        assertThat(refused.outcome().httpStatus()).isEqualTo(503);
                        assertThat(refused.error()).contains("partition 0").contains(first.value());
                    }
                }
                // Every leaf listed, the in-sync one down: the stored primary fails and nothing else may be promoted.
                try (RootServer restarted = root(config, zk)) {
                    DocumentResult refused = restarted.documents()
                            .upsert("while-down", Map.of("title", "sedge"), WriteOptions.NONE).join();
                    assertThat(refused.outcome()).as(refused.error()).isEqualTo(DocumentResult.Outcome.UNAVAILABLE);
                    assertThat(refused.error()).contains("partition 0");
                    assertThat(storedState(zk).primary()).as("the stale replica was not promoted").isEqualTo(first);

                    try (LeafServer back = restart(cluster, 0, firstPort)) {
                        DocumentResult[] last = new DocumentResult[1];
                        Await.until(() -> "writes taken again: " + last[0], PATIENCE, () -> {
                            last[0] = restarted.documents().upsert("after", Map.of("title", "sedge"),
                                    WriteOptions.NONE).join();
                            return last[0].outcome().succeeded();
                        });
                        assertThat(last[0].version()).as("numbered above the acknowledged writes")
                                .isGreaterThan(acknowledged);
                        for (int i = 0; i < 10; i++) {
                            assertThat(restarted.documents().get("first-" + i).join().outcome())
                                    .isEqualTo(DocumentResult.Outcome.FOUND);
                        }
                    }
                }
            }
        }
    }

    /**
     * The first root promotes the second leaf (term 2) while the first leaf is down, and stops. The first
     * leaf comes back still at term 1, and the second root, which has not heard of the promotion, sends it
     * a write as its primary: that leaf numbers and logs it, but the new primary refuses the copy (term 1),
     * so the second root reads the state again and the write is acknowledged in term 2 on the new primary.
     * The first leaf now holds that unacknowledged write under a seq where the new primary holds an
     * acknowledged one: it must be rebuilt, not caught up from its last seq, before it rejoins; then the
     * new primary goes down, the first leaf is promoted (term 3), and every acknowledged write is there.
     */
    /**
     * The placement retires the primary's copy (a move, or a surplus copy after a leaf's return) while
     * the other replica is in sync: the other is promoted in the next term and writes go on. Before,
     * the stored primary was no replica any more, nothing promoted another, and every write of the
     * partition was refused (the durability run across namespaces, seed 22).
     */
    @Test
    void aPrimaryWhoseCopyIsRetiredIsSucceededByAnInSyncReplica(@TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data);
                RootServer root = root(cluster.root().cluster().config(), zk)) {
            NodeId first = StoredState.nodeOf(LeafAddress.parse(address(cluster.leaves().get(0).port())));
            NodeId second = StoredState.nodeOf(LeafAddress.parse(address(cluster.leaves().get(1).port())));
            write(root.documents(), "before-", 3);
            assertThat(storedState(zk).primary()).isEqualTo(first);

            root.documents().copies(0, new int[] {1}); // what the placement tells the write path when it retires it
            write(root.documents(), "after-", 3);
            PartitionState state = storedState(zk);
            assertThat(state.primary()).isEqualTo(second);
            assertThat(state.primaryTerm()).isEqualTo(2);
            assertThat(state.inSync()).as("the retired copy left the in-sync set before a write went on without it")
                    .containsExactly(second);
            assertThat(root.documents().get("before-0").join().outcome()).isEqualTo(DocumentResult.Outcome.FOUND);
        }
    }

    @Test
    void aSecondRootWritesInTheTermTheFirstPromotedAndTheLeafRefusesTheOlderTerm(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data)) {
            ClusterConfig config = cluster.root().cluster().config();
            int firstPort = cluster.leaves().get(0).port();
            int secondPort = cluster.leaves().get(1).port();
            NodeId first = StoredState.nodeOf(LeafAddress.parse(address(firstPort)));
            NodeId second = StoredState.nodeOf(LeafAddress.parse(address(secondPort)));
            List<String> acknowledged = new ArrayList<>();
            RootServer one = root(config, zk);
            try (RootServer two = root(config, zk)) {
                try {
                    write(one.documents(), "one-", 3);
                    write(two.documents(), "two-", 3);
                    assertThat(storedState(zk).primary()).isEqualTo(first);
                    assertThat(one.documents().primaryTerm(0)).isEqualTo(two.documents().primaryTerm(0)).isEqualTo(1);

                    cluster.leaves().get(0).close();
                    long promoted = write(one.documents(), "promoted-", 3);
                    assertThat(one.documents().primaryTerm(0)).as("the promotion bumped the term").isEqualTo(2);
                    PartitionState state = storedState(zk);
                    assertThat(state.primaryTerm()).isEqualTo(2);
                    assertThat(state.primary()).isEqualTo(second);
                    assertThat(state.inSync()).containsExactly(second);
                    assertThat(two.documents().primaryTerm(0)).as("the second root has not heard of it").isEqualTo(1);
                    acknowledged.addAll(List.of("one-0", "one-1", "one-2", "two-0", "two-1", "two-2", "promoted-0",
                            "promoted-1", "promoted-2"));

                    one.close();
                    try (LeafServer back = restart(cluster, 0, firstPort)) {
                        // The second root still reads from its primary of term 1, which answers once reconnected.
                        Await.until(() -> "the second root reaches the first leaf", PATIENCE,
                                () -> two.documents().get("one-0").join().outcome() == DocumentResult.Outcome.FOUND);
                        DocumentResult through = two.documents()
                                .upsert("through-two", Map.of("title", "sedge"), WriteOptions.NONE).join();
                        assertThat(through.outcome()).as(through.error()).isEqualTo(DocumentResult.Outcome.CREATED);
                        assertThat(through.version()).as("numbered by the new primary").isGreaterThan(promoted);
                        assertThat(two.documents().primaryTerm(0)).as("the write went in the new term").isEqualTo(2);
                        acknowledged.add("through-two");

                        Await.until(() -> "the first leaf back in sync: " + two.documents().replicas(0), PATIENCE,
                                () -> two.documents().inSyncReplicas(0) == 2);
                        assertThat(storedState(zk).inSync()).containsExactlyInAnyOrder(first, second);

                        cluster.leaves().get(1).close();
                        DocumentResult after = two.documents().upsert("after-second", Map.of("title", "sedge"),
                                WriteOptions.NONE).join();
                        assertThat(after.outcome()).as(after.error()).isEqualTo(DocumentResult.Outcome.CREATED);
                        acknowledged.add("after-second");
                        assertThat(two.documents().primaryTerm(0)).isEqualTo(3);
                        assertThat(storedState(zk).primary()).isEqualTo(first);
                        for (String id : acknowledged) {
                            assertThat(two.documents().get(id).join().outcome()).as("%s on the first leaf, now primary",
                                    id).isEqualTo(DocumentResult.Outcome.FOUND);
                        }

                        WriteResponse stale = send(cluster, firstPort, WriteRequest.newBuilder().setPartition(0)
                                .setPrimary(true).setPrimaryTerm(2).addOps(WriteOp.newBuilder()
                                        .setKind(WriteKind.UPSERT).setId("deposed")));
                        assertThat(stale.getStatus()).as(stale.getError()).isEqualTo(Status.STALE_TERM);
                        assertThat(stale.getPrimaryTerm()).isEqualTo(3);
                        assertThat(two.documents().get("deposed").join().outcome())
                                .isEqualTo(DocumentResult.Outcome.NOT_FOUND);
                    }
                } finally {
                    one.close();
                }
            }
        }
    }

    /**
     * A replica fails a write while ZooKeeper cannot be reached: it cannot leave the stored in-sync set,
     * so the write is refused, never acknowledged without it; once ZooKeeper is back, the next write
     * takes it out of the set first and is acknowledged.
     */
    @Test
    void aWriteIsRefusedWhenAFailedReplicaCannotLeaveTheStoredInSyncSet(@TempDir Path data) throws Exception {
        Path zkData = data.resolve("zk");
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, zkData));
        int zkPort = zk.port();
        try (EmbeddedCluster cluster = start(data); RootServer root = RootServer.start(cluster.root().cluster().config(),
                null, READY, null, ClusterState.randomRootId(), storedImpatient(zk))) {
            write(root.documents(), "both-", 3);
            int secondPort = cluster.leaves().get(1).port();
            zk.close();
            cluster.leaves().get(1).close();

            DocumentResult refused = root.documents().upsert("while-zk-down", Map.of("title", "sedge"),
                    WriteOptions.NONE).join();
            assertThat(refused.outcome()).as(refused.error()).isEqualTo(DocumentResult.Outcome.UNAVAILABLE);
            assertThat(refused.error()).contains("partition 0").contains("coordination store");

            zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(zkPort, zkData));
            DocumentResult[] last = new DocumentResult[1];
            Await.until(() -> "writes taken again: " + last[0], PATIENCE, () -> {
                last[0] = root.documents().upsert("after-zk", Map.of("title", "sedge"), WriteOptions.NONE).join();
                return last[0].outcome().succeeded();
            });
            assertThat(storedState(zk).inSync()).as("the failed replica left the stored set before the ack")
                    .containsExactly(StoredState.nodeOf(LeafAddress.parse(address(cluster.leaves().get(0).port()))))
                    .doesNotContain(StoredState.nodeOf(LeafAddress.parse(address(secondPort))));
        } finally {
            zk.close();
        }
    }

    /**
     * A root given only some of the leaves of a stored in-sync set acknowledges a write only after the
     * copies it does not reach have left the stored set: otherwise another root could later promote one
     * of them, which lacks the write.
     */
    @Test
    void aRootTakesCopiesItDoesNotReachOutOfTheStoredInSyncSetBeforeAcknowledging(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data)) {
            NodeId first = StoredState.nodeOf(LeafAddress.parse(address(cluster.leaves().get(0).port())));
            try (RootServer both = root(cluster.root().cluster().config(), zk)) {
                write(both.documents(), "both-", 2);
            }
            assertThat(storedState(zk).inSync()).hasSize(2);

            ClusterConfig firstOnly = ClusterConfig.of(cluster.manifest(),
                    List.of(address(cluster.leaves().get(0).port())), 1)
                    .withClusterSecret(cluster.root().cluster().config().clusterSecret());
            try (RootServer root = root(firstOnly, zk)) {
                write(root.documents(), "first-only-", 2);
                assertThat(storedState(zk).inSync()).as("the copy the write did not reach left the set first")
                        .containsExactly(first);
            }
        }
    }

    /** One request straight to the leaf on {@code port}, as a root of the old term would send it. */
    private static WriteResponse send(EmbeddedCluster cluster, int port, WriteRequest.Builder request)
            throws Exception {
        ClusterState state = cluster.root().cluster();
        EventLoopGroup group = Transport.best().newGroup(1, "test-stale-term");
        WriteLink link = new WriteLink(LeafAddress.parse(address(port)), group, Transport.best().channelClass(),
                state.rootHello(), state.config().maxFrameBytes(), state.linkTls());
        try {
            return link.send(request, PATIENCE).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } finally {
            link.close();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
    }
}
