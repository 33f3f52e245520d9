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
 * A write is not held by the catch-up of a replica that stopped answering (as a leaf paused with
 * SIGSTOP: its connection stays open, nothing comes back). The catch-up runs beside the writes
 * ({@link ReplicaCatchUp#advance}); when it ran between batches, a write queued just as it asked the
 * silent replica waited the whole replica timeout. The test sees the catch-up's request reach the
 * silent replica, then writes: the answer must come within half the replica timeout (in practice
 * milliseconds), where the old step order held it the full timeout. Real leaves over loopback, the
 * second behind a relay that can stop passing bytes on.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SilentReplicaCatchUpTest {
    /**
     * Long enough that half of it is a generous bound for an answer that takes milliseconds; short,
     * as the test waits it out once for the copy to the silent replica (20 s cost CI 20 s).
     */
    private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(8);

    @Test
    void aWriteIsAnsweredWhileTheCatchUpWaitsForASilentReplica(@TempDir Path data) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("silent", IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(2).partitions(1).replicas(2).start();
                LinkRelay relay = new LinkRelay(cluster.leaves().get(1).port())) {
            ClusterState state = cluster.root().cluster();
            EventLoopGroup group = Transport.best().newGroup(1, "test-silent");
            WriteLink first = link(state, group, new LeafAddress("127.0.0.1", cluster.leaves().get(0).port()));
            WriteLink second = link(state, group, new LeafAddress("127.0.0.1", relay.port()));
            PartitionWriter writer = new PartitionWriter(0, new WriteLink[] {first, second}, new int[] {0, 1},
                    new StaleReplicas(1, 2), WriteSettings.defaults().withTimeout(REPLICA_TIMEOUT),
                    Ticker.system(), new WriteMeters(new SimpleMeterRegistry()));
            try {
                assertThat(write(writer, "both").get(REPLICA_TIMEOUT.toSeconds(), TimeUnit.SECONDS).getOutcome())
                        .isEqualTo(WriteOutcome.CREATED);

                relay.stop();
                // The copy to the silent replica times out and it leaves the in-sync set.
                assertThat(write(writer, "leaves").get(REPLICA_TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)
                        .getOutcome()).isEqualTo(WriteOutcome.CREATED);
                assertThat(writer.replicas().inSyncCount()).isEqualTo(1);

                relay.arrivals.drainPermits();
                // Within three timeouts: a probe that came before the drain is answered by its timeout, and the next asks again.
                assertThat(relay.arrivals.tryAcquire(REPLICA_TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS))
                        .as("the catch-up asks the silent replica").isTrue();
                WriteResult beside = write(writer, "beside").get(REPLICA_TIMEOUT.toMillis() / 2, TimeUnit.MILLISECONDS);
                assertThat(beside.getOutcome()).isEqualTo(WriteOutcome.CREATED);
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

    private static CompletableFuture<WriteResult> write(PartitionWriter writer, String id) {
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        WriteOp op = WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("marram")).build();
        assertThat(writer.offer(new PartitionWriter.Pending(op, false, result))).isTrue();
        return result;
    }
}
