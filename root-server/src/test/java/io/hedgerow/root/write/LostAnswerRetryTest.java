package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.index.IndexConfig;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary that applied a batch and copied it to its replica, but whose answer never reached the
 * root (a cut link, a process paused after it wrote): the root sends the batch again to the replica
 * it makes primary, which already holds it. A delete then finds nothing to delete; answered as a
 * definite 404, the caller would believe the document still exists (the durability checker counted
 * such documents lost). The retry's refusal decided by the document's state is no answer: the caller
 * is told the outcome is unknown (503). Real leaves over loopback, the root's link to the primary
 * through a relay that drops the primary's answers.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LostAnswerRetryTest {
    private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void aRetriedDeleteThatFindsNothingIsNoDefiniteNotFound(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("lost-answer", IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(2).partitions(1).replicas(2).start();
                LinkRelay relay = new LinkRelay(cluster.leaves().get(0).port())) {
            ClusterState state = cluster.root().cluster();
            EventLoopGroup group = Transport.best().newGroup(1, "test-lost-answer");
            WriteLink first = link(state, group, new LeafAddress("127.0.0.1", relay.port()));
            WriteLink second = link(state, group, new LeafAddress("127.0.0.1", cluster.leaves().get(1).port()));
            PartitionWriter writer = new PartitionWriter(0, new WriteLink[] {first, second}, new int[] {0, 1},
                    new StaleReplicas(1, 2), WriteSettings.defaults().withTimeout(REPLICA_TIMEOUT),
                    Ticker.system(), new WriteMeters(new SimpleMeterRegistry()));
            try {
                assertThat(send(writer, WriteKind.UPSERT, "heron").get(30, TimeUnit.SECONDS).getOutcome())
                        .isEqualTo(WriteOutcome.CREATED);

                relay.stopAnswers();
                WriteResult deleted = send(writer, WriteKind.DELETE, "heron").get(60, TimeUnit.SECONDS);
                assertThat(deleted.getOutcome()).as(deleted.toString()).isEqualTo(WriteOutcome.REJECTED);
                assertThat(deleted.getError()).startsWith(PartitionWriter.UNAVAILABLE).contains("outcome is unknown");

                // The first send did delete it: the new primary holds no such document.
                WriteResult again = send(writer, WriteKind.DELETE, "heron").get(30, TimeUnit.SECONDS);
                assertThat(again.getOutcome()).as("a fresh batch's answer is definite").isEqualTo(WriteOutcome.NOT_FOUND);
            } finally {
                writer.close();
                first.close();
                second.close();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    private static WriteLink link(ClusterState state, EventLoopGroup group, LeafAddress address) {
        return new WriteLink(address, group, Transport.best().channelClass(), state.rootHello(),
                state.config().maxFrameBytes(), state.linkTls());
    }

    private static CompletableFuture<WriteResult> send(PartitionWriter writer, WriteKind kind, String id) {
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        WriteOp.Builder op = WriteOp.newBuilder().setKind(kind).setId(id);
        if (kind == WriteKind.UPSERT) {
            op.addFields(StoredField.newBuilder().setName("title").setValue("grey heron"));
        }
        assertThat(writer.offer(new PartitionWriter.Pending(op.build(), false, result))).isTrue();
        return result;
    }
}
