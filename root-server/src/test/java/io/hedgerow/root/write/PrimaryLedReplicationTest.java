package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResult;
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
import io.hedgerow.root.DelayRelay;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Primary-led replication with several roots writing one partition (issue 31): each root sends its
 * batches to the stored primary only, which numbers, logs and copies them to the replicas itself, in
 * seq order, so a replica never sees another root's batches out of order; a catch-up finishes through
 * the primary, so a replica that joins while another root writes misses none of its writes; a replica
 * that stops answering leaves the stored in-sync set before a write is acknowledged without it. Each
 * "root" is a {@link PartitionWriter} of its own (its own links, root id and coordination thread) on one
 * embedded ZooKeeper; real leaves over loopback, real Lucene.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PrimaryLedReplicationTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(3);

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final EventLoopGroup group = Transport.best().newGroup(2, "test-primary-led");

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static EmbeddedCluster start(Path data, int leaves) throws Exception {
        return EmbeddedCluster.builder(data)
                .documents("primaryled", IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(leaves).partitions(1).replicas(leaves)
                .start();
    }

    /** A root of its own: a writer of partition 0 with its own root id, links and coordination thread. */
    private PartitionWriter root(EmbeddedCluster cluster, EmbeddedZooKeeper zk, List<String> addresses)
            throws Exception {
        ClusterState state = cluster.root().cluster();
        long rootId = ClusterState.randomRootId();
        WriteLink[] links = new WriteLink[addresses.size()];
        int[] leaves = new int[addresses.size()];
        for (int i = 0; i < links.length; i++) {
            links[i] = new WriteLink(LeafAddress.parse(addresses.get(i)), group, Transport.best().channelClass(),
                    Protocol.rootHello(rootId, state.config().clusterSecret()), state.config().maxFrameBytes(),
                    state.linkTls());
            leaves[i] = i;
            WriteLink link = links[i];
            closing.add(link::close);
        }
        CoordinationClient client = CoordinationClient.connect(CoordinationSettings.of(zk.connectString(), "primaryled"));
        closing.add(client);
        ExecutorService coordination = Executors.newSingleThreadExecutor();
        closing.add(coordination::shutdownNow);
        PartitionWriter writer = new PartitionWriter(0, links, leaves, new StaleReplicas(1, links.length),
                WriteSettings.defaults().withTimeout(REPLICA_TIMEOUT), Ticker.system(),
                new WriteMeters(new SimpleMeterRegistry()),
                new StoredState(0, new CuratorClusterStore(client), coordination));
        closing.add(writer::close);
        return writer;
    }

    private static List<String> addresses(EmbeddedCluster cluster) {
        return cluster.leaves().stream().map(leaf -> "127.0.0.1:" + leaf.port()).toList();
    }

    private static CompletableFuture<WriteResult> write(PartitionWriter writer, String id) {
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        WriteOp op = WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("marram " + id)).build();
        assertThat(writer.offer(new PartitionWriter.Pending(op, false, result))).as("queued %s", id).isTrue();
        return result;
    }

    private static CompletableFuture<WriteResult> delete(PartitionWriter writer, String id) {
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        WriteOp op = WriteOp.newBuilder().setKind(WriteKind.DELETE).setId(id).build();
        assertThat(writer.offer(new PartitionWriter.Pending(op, false, result))).as("queued the delete of %s", id)
                .isTrue();
        return result;
    }

    /** Writes until acknowledged: the first writes wait for the writer to read the stored state. */
    private static WriteResult writeUntilAcknowledged(PartitionWriter writer, String id) throws Exception {
        WriteResult[] last = new WriteResult[1];
        Await.until(() -> id + " acknowledged: " + last[0], PATIENCE, () -> {
            writer.tick();
            last[0] = write(writer, id).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return last[0].getOutcome() == WriteOutcome.CREATED || last[0].getOutcome() == WriteOutcome.UPDATED;
        });
        return last[0];
    }

    private static PartitionState stored(EmbeddedZooKeeper zk) throws Exception {
        try (CoordinationClient client = CoordinationClient.connect(CoordinationSettings.of(zk.connectString(),
                "primaryled"))) {
            return new CuratorClusterStore(client).read(0).orElseThrow();
        }
    }

    private static NodeId node(String address) {
        return StoredState.nodeOf(LeafAddress.parse(address));
    }

    /** The ids of {@code ids} that the leaf at {@code address} does not hold (a GET on its own copy). */
    private List<String> missingOn(EmbeddedCluster cluster, String address, List<String> ids) throws Exception {
        WriteLink link = new WriteLink(LeafAddress.parse(address), group, Transport.best().channelClass(),
                cluster.root().cluster().rootHello(), cluster.root().cluster().config().maxFrameBytes(),
                cluster.root().cluster().linkTls());
        try {
            List<String> missing = new ArrayList<>();
            for (String id : ids) {
                WriteResult found = link.send(WriteRequest.newBuilder().setPartition(0)
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id)), PATIENCE)
                        .get(PATIENCE.toSeconds(), TimeUnit.SECONDS).getResults(0);
                if (found.getOutcome() != WriteOutcome.FOUND) {
                    missing.add(id);
                }
            }
            return missing;
        } finally {
            link.close();
        }
    }

    /**
     * Two roots write one partition at once, the first further from the replicas than the second
     * (its bytes to them 100 ms late): every write is acknowledged, every replica holds every one of
     * them, and no replica left the in-sync set. Before primary-led replication each root copied its
     * own batches, so a replica got the second root's seq N+1 before the first root's N, refused the
     * gap and was taken out of the set (seen failing on the old code: the stored in-sync set lost
     * the replicas).
     */
    @Test
    void twoRootsWritingOnePartitionAtOnceLeaveEveryReplicaInSyncWithEveryWrite(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data, 3);
                DelayRelay second = new DelayRelay(cluster.leaves().get(1).port(), 100);
                DelayRelay third = new DelayRelay(cluster.leaves().get(2).port(), 100)) {
            List<String> addresses = List.of("127.0.0.1:" + cluster.leaves().get(0).port(), second.address(),
                    third.address());
            second.slow(true);
            third.slow(true);
            PartitionWriter one = root(cluster, zk, addresses);
            writeUntilAcknowledged(one, "first-one"); // its links to the replicas are open now, and slow
            second.slow(false);
            third.slow(false);
            PartitionWriter two = root(cluster, zk, addresses);
            writeUntilAcknowledged(two, "first-two");

            List<String> ids = new ArrayList<>();
            List<CompletableFuture<WriteResult>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String id = "doc-" + i;
                ids.add(id);
                results.add(write(i % 2 == 0 ? one : two, id));
            }
            for (int i = 0; i < results.size(); i++) {
                WriteResult result = results.get(i).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(result.getOutcome()).as("%s: %s", ids.get(i), result.getError())
                        .isIn(WriteOutcome.CREATED, WriteOutcome.UPDATED);
            }

            assertThat(stored(zk).inSync()).as("no replica was thrown out because the other root wrote")
                    .containsExactlyInAnyOrderElementsOf(addresses.stream().map(PrimaryLedReplicationTest::node)
                            .toList());
            assertThat(one.replicas().inSyncCount()).isEqualTo(3);
            assertThat(two.replicas().inSyncCount()).isEqualTo(3);
            for (String address : addresses) {
                assertThat(missingOn(cluster, address, ids)).as("acknowledged writes missing on %s", address)
                        .isEmpty();
            }
        }
    }

    /**
     * A replica that missed writes comes back and is caught up while another root keeps writing: it
     * joins the stored in-sync set only holding every acknowledged write, the other root's included
     * (the catch-up's last step runs on the primary, with no batch of any root numbered in between, and
     * the primary copies every later batch to it).
     */
    @Test
    void aReplicaCaughtUpWhileAnotherRootWritesHoldsEveryAcknowledgedWrite(@TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data, 3)) {
            List<String> addresses = addresses(cluster);
            PartitionWriter one = root(cluster, zk, addresses);
            PartitionWriter two = root(cluster, zk, addresses);
            List<String> acknowledged = new ArrayList<>();
            writeUntilAcknowledged(one, "first-one");
            writeUntilAcknowledged(two, "first-two");
            acknowledged.addAll(List.of("first-one", "first-two"));

            int port = cluster.leaves().get(2).port();
            cluster.leaves().get(2).close();
            for (int i = 0; i < 5; i++) {
                writeUntilAcknowledged(i % 2 == 0 ? one : two, "while-down-" + i);
                acknowledged.add("while-down-" + i);
            }
            assertThat(stored(zk).inSync()).doesNotContain(node(addresses.get(2)));

            LeafServer back = LeafServer.start(LeafConfig.defaults(cluster.index().dir()).withPort(port)
                    .withClusterSecret(cluster.root().cluster().config().clusterSecret())
                    .withLive(LiveSettings.defaults().withNodeId("auto-2")));
            closing.add(back);
            // The second root writes on and on while the first catches the replica up and joins it.
            AtomicBoolean writing = new AtomicBoolean(true);
            List<String> byTwo = java.util.Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
                int i = 0;
                while (writing.get()) {
                    String id = "beside-" + i++;
                    WriteResult result = write(two, id).join();
                    if (result.getOutcome() == WriteOutcome.CREATED) {
                        byTwo.add(id);
                    }
                }
            });
            try {
                Await.until(() -> "the replica back in the stored in-sync set: " + one.replicas().status(), PATIENCE,
                        () -> {
                            one.tick();
                            return stored(zk).inSync().contains(node(addresses.get(2)));
                        });
                // A few more of the second root's writes after the join: they must reach the replica too.
                int joinedAt = byTwo.size();
                Await.until("writes after the join", PATIENCE, () -> byTwo.size() >= joinedAt + 20);
            } finally {
                writing.set(false);
                writes.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
            acknowledged.addAll(byTwo);
            assertThat(stored(zk).inSync()).as("it stayed in sync: the second root's writes reached it")
                    .contains(node(addresses.get(2)));
            assertThat(missingOn(cluster, addresses.get(2), acknowledged))
                    .as("acknowledged writes missing on the replica in the stored in-sync set").isEmpty();
        }
    }

    /**
     * A replica stops answering (its connection stays open, as a paused process's): the next write is
     * answered (within a few replica timeouts, not held), and the replica is out of the stored in-sync set
     * by the time it is acknowledged.
     */
    @Test
    void aSilentReplicaLeavesTheStoredInSyncSetBeforeTheWriteIsAcknowledged(@TempDir Path data) throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data, 2);
                LinkRelay relay = new LinkRelay(cluster.leaves().get(1).port())) {
            List<String> addresses = List.of("127.0.0.1:" + cluster.leaves().get(0).port(), relay.address());
            PartitionWriter root = root(cluster, zk, addresses);
            writeUntilAcknowledged(root, "both");
            assertThat(stored(zk).inSync()).contains(node(relay.address()));

            relay.stop();
            // Answered, not held: a bound of a few timeouts, loose enough for a loaded 2-core machine (the
            // timeout plus a second it takes is a benchmark's figure, not this test's).
            WriteResult answered = write(root, "without").get(REPLICA_TIMEOUT.multipliedBy(3)
                    .plus(PartitionWriter.PRIMARY_MARGIN).plusSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(answered.getOutcome()).as(answered.getError()).isEqualTo(WriteOutcome.CREATED);
            PartitionState state = stored(zk);
            assertThat(state.inSync()).as("out of the stored set before the write was acknowledged")
                    .containsExactly(node(addresses.get(0)));
        }
    }

    /**
     * The primary deletes a document and copies the delete to the replica, but its answer never reaches
     * the root (a leaf frozen right after copying, or a root paused until its timeout fired: the
     * durability run s40, seed 31, reported four acknowledged adds lost this way). The root promotes
     * the replica and sends the batch again; the replica took the copy, so it finds no document. That
     * is the first send's own delete, not a document that never was: the delete is answered as
     * unavailable (its outcome unknown), never as a definite NOT_FOUND, which told the client its
     * delete did not happen while the document was gone. Seen failing on the old code (NOT_FOUND).
     */
    @Test
    void aDeleteSentAgainAfterItsPrimaryAppliedItSilentlyIsNeverAnsweredNotFound(@TempDir Path data)
            throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(EmbeddedZooKeeper.Config.local(0, data.resolve("zk")));
                EmbeddedCluster cluster = start(data, 2);
                LinkRelay relay = new LinkRelay(cluster.leaves().get(0).port())) {
            List<String> addresses = List.of(relay.address(), "127.0.0.1:" + cluster.leaves().get(1).port());
            PartitionWriter root = root(cluster, zk, addresses);
            writeUntilAcknowledged(root, "added");
            assertThat(stored(zk).primary()).as("the first in assignment order is primary")
                    .isEqualTo(node(addresses.get(0)));
            assertThat(stored(zk).inSync()).containsExactlyInAnyOrder(node(addresses.get(0)), node(addresses.get(1)));

            relay.stopAnswers();
            WriteResult deleted = delete(root, "added").get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

            assertThat(stored(zk).primary()).as("the replica was promoted once the primary went silent")
                    .isEqualTo(node(addresses.get(1)));
            assertThat(missingOn(cluster, addresses.get(1), List.of("added")))
                    .as("the first send's delete reached the promoted replica").containsExactly("added");
            assertThat(deleted.getOutcome()).as("the delete sent again: %s", deleted.getError())
                    .isNotEqualTo(WriteOutcome.NOT_FOUND).isEqualTo(WriteOutcome.REJECTED);
            assertThat(deleted.getError()).startsWith(PartitionWriter.UNAVAILABLE).contains("'added'")
                    .contains("no document").contains("outcome is unknown");
        }
    }
}
