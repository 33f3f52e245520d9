package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
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

/**
 * A test's partition on two real leaves over loopback, written by a {@link PartitionWriter} of its own
 * (no coordination store) whose link to one leaf goes through a {@link LinkRelay} the test can cut:
 * replica 0 is leaf 0, replica 1 leaf 1, the relay in front of leaf {@code relayed}.
 */
final class RelayedPair implements AutoCloseable {
    final EmbeddedCluster cluster;
    final LinkRelay relay;
    final PartitionWriter writer;
    private final EventLoopGroup group;
    private final WriteLink first;
    private final WriteLink second;

    RelayedPair(Path data, String index, int relayed, Duration replicaTimeout) throws Exception {
        cluster = EmbeddedCluster.builder(data).documents(index, IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(2).partitions(1).replicas(2).start();
        relay = new LinkRelay(cluster.leaves().get(relayed).port());
        ClusterState state = cluster.root().cluster();
        group = Transport.best().newGroup(1, "test-" + index);
        first = link(state, relayed == 0 ? relay.port() : cluster.leaves().get(0).port());
        second = link(state, relayed == 1 ? relay.port() : cluster.leaves().get(1).port());
        writer = new PartitionWriter(0, new WriteLink[] {first, second}, new int[] {0, 1}, new StaleReplicas(1, 2),
                WriteSettings.defaults().withTimeout(replicaTimeout), Ticker.system(),
                new WriteMeters(new SimpleMeterRegistry()));
    }

    private WriteLink link(ClusterState state, int port) {
        return new WriteLink(new LeafAddress("127.0.0.1", port), group, Transport.best().channelClass(),
                state.rootHello(), state.config().maxFrameBytes(), state.linkTls());
    }

    /** Queues an upsert (a title field) or a delete of {@code id}. */
    CompletableFuture<WriteResult> send(WriteKind kind, String id) {
        CompletableFuture<WriteResult> result = new CompletableFuture<>();
        WriteOp.Builder op = WriteOp.newBuilder().setKind(kind).setId(id);
        if (kind == WriteKind.UPSERT) {
            op.addFields(StoredField.newBuilder().setName("title").setValue("grey heron"));
        }
        assertThat(writer.offer(new PartitionWriter.Pending(op.build(), false, result))).isTrue();
        return result;
    }

    @Override
    public void close() throws Exception {
        writer.close();
        first.close();
        second.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        relay.close();
        cluster.close();
    }
}
