package io.hedgerow.root.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.PartitionInfo;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf that dies in the middle of a search, over real sockets: a real leaf and a leaf written by
 * hand hold both partitions; the hand-written one passes the handshake, then, at the first search
 * it is sent, closes its connection and stops listening, as a SIGKILLed process does. The hedge
 * budget is empty (a crash under load has spent it), yet the search answers complete from the
 * real leaf: the lost copies' retries are not charged to it.
 */
@Timeout(60)
class LeafLostMidSearchTest {
    @TempDir
    Path dataDir;

    @Test
    void aLeafKilledMidSearchFailsNothingWhileItsReplicasAreUp() throws Exception {
        PartitionStore store = new PartitionStore(dataDir.resolve("index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none())
                .build(store, "lost", IndexConfig.defaults(), TestData.documents(1, 60));
        var identity = IndexIdentities.of(store.readManifest());
        AtomicReference<FakeLeaf> dying = new AtomicReference<>();
        try (LeafServer real = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1));
                FakeLeaf fake = new FakeLeaf(frame -> switch (frame.getBodyCase()) {
                    case HELLO -> Frame.newBuilder().setHelloAck(HelloAck.newBuilder()
                            .setProtocolVersion(Protocol.VERSION).setIndex(identity)).build();
                    case ASSIGN -> {
                        AssignAck.Builder ack = AssignAck.newBuilder().setRequestId(frame.getAssign().getRequestId());
                        for (int partition : frame.getAssign().getPartitionsList()) {
                            ack.addPartitions(PartitionInfo.newBuilder().setPartition(partition).setDocCount(30));
                        }
                        yield Frame.newBuilder().setAssignAck(ack).build();
                    }
                    // A leaf that took no writes: seq 0, as the real one (so both are in sync).
                    case WRITE -> Frame.newBuilder().setWriteResult(WriteResponse.newBuilder()
                            .setRequestId(frame.getWrite().getRequestId()).setPartition(frame.getWrite().getPartition())
                            .setStatus(Status.OK)).build();
                    default -> {
                        closeQuietly(dying.get()); // killed: no more connections either
                        yield null; // and this one closes
                    }
                })) {
            dying.set(fake);
            ClusterConfig config = ClusterConfig.of(store.readManifest(),
                            List.of("127.0.0.1:" + real.port(), fake.address()), 2)
                    .withHedge(HedgeSettings.defaults().withBudgetRatio(0).withBudgetMinPerSecond(0)
                            .withRetryFloorPerSecond(0))
                    .withTail(TailSettings.defaults().withCanaries(0).withMinCoverage(1.0))
                    .withIoThreads(1);
            try (RootServer root = RootServer.start(config, "127.0.0.1", 0, Duration.ofSeconds(10))) {
                SearchResult result = root.client().search(SearchRequest.builder("alpha OR bravo OR charlie")
                        .k(5).hedge(HedgeMode.OFF).cache(false).timeoutMillis(10_000).build()).join();

                assertThat(fake.searches()).as("the hand-written leaf got a copy before it died").isPositive();
                assertThat(result.tainted()).as("complete from the real leaf: " + result.errors()).isFalse();
                assertThat(result.coverage().partitionsAnswered()).isEqualTo(2);
            }
        }
    }

    private static void closeQuietly(FakeLeaf leaf) {
        try {
            leaf.close();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
