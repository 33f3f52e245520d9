package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.hedgerow.common.net.Transport;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that holds another op under a seq than the primary (here planted by a stray writer)
 * answers {@code diverged:} when the primary's op reaches it; the root never marks it in sync as it
 * is (the leaf's log read would find nothing to copy and the old catch-up re-admitted it), but
 * rebuilds it from a snapshot of the primary's copy, after which it holds the primary's history.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DivergedReplicaTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aDivergedReplicaIsRebuiltFromThePrimaryNeverReadmittedAsItIs(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("diverge", IndexConfig.defaults(), TestData.documents(3, 50))
                .leaves(2).partitions(1).replicas(2).http(0).start()) {
            DocumentWriter documents = cluster.root().documents();
            long seq = 0;
            for (int i = 0; i < 5; i++) {
                seq = documents.upsert("shared-" + i, Map.of("title", "tundra"), WriteOptions.NONE).join().version();
            }
            ReplicaStatus primary = documents.replicas(0).stream().filter(ReplicaStatus::primary).findFirst()
                    .orElseThrow();
            LeafAddress other = documents.replicas(0).stream().map(ReplicaStatus::leaf)
                    .filter(leaf -> !leaf.equals(primary.leaf())).findFirst().orElseThrow();
            ClusterState state = cluster.root().cluster();
            EventLoopGroup group = Transport.best().newGroup(1, "test-stray");
            WriteLink stray = new WriteLink(other, group, Transport.best().channelClass(), state.rootHello(),
                    state.config().maxFrameBytes(), state.linkTls());
            try {
                // The replica takes an op under the next seq that the primary never had.
                WriteResponse planted = stray.send(WriteRequest.newBuilder().setPartition(0).setPrimary(false)
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("stray").setSeq(seq + 1)
                                .addFields(StoredField.newBuilder().setName("title").setValue("stray"))),
                        PATIENCE).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(planted.getError()).isEmpty();

                DocumentResult next = documents.upsert("next", Map.of("title", "tundra"), WriteOptions.NONE).join();
                assertThat(next.outcome()).isEqualTo(DocumentResult.Outcome.CREATED);
                assertThat(next.version()).isEqualTo(seq + 1);

                Await.until(() -> "the diverged replica back in sync: " + documents.replicas(0), PATIENCE,
                        () -> documents.inSyncReplicas(0) == 2);
                WriteResponse read = stray.send(WriteRequest.newBuilder().setPartition(0)
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId("stray")), PATIENCE)
                        .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(read.getResults(0).getOutcome()).as("the stray op is gone: it holds the primary's history")
                        .isEqualTo(WriteOutcome.NOT_FOUND);
                WriteResponse mine = stray.send(WriteRequest.newBuilder().setPartition(0)
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId("next")), PATIENCE)
                        .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(mine.getResults(0).getOutcome()).isEqualTo(WriteOutcome.FOUND);
            } finally {
                stray.close();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }
}
