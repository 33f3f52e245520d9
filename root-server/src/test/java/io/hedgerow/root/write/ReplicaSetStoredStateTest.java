package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.net.Transport;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.write.ReplicaSet.Replica;
import io.netty.channel.EventLoopGroup;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With two roots, one may see a copy diverge and plan to rebuild it while the other catches it up
 * through the primary and joins it to the stored in-sync set. The stored set is the truth: the first
 * root must then count the copy in sync (its writes reach it; a write acknowledged without it, and
 * the copy promoted later, would be lost) and never restore it from a snapshot (a durability run
 * saw a root restore a new primary's copy from the deposed primary's snapshot, dropping acknowledged
 * writes). No leaf is dialled: links connect only when used.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReplicaSetStoredStateTest {
    private final EventLoopGroup group = Transport.best().newGroup(1, "test-replica-set");

    @AfterEach
    void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private WriteLink link(int port) {
        return new WriteLink(new LeafAddress("127.0.0.1", port), group, Transport.best().channelClass(), null,
                1 << 20, LinkTls.NONE);
    }

    @Test
    void aCopyTheStoreListsInSyncIsInSyncHereWhateverThisRootPlannedForIt() {
        ReplicaSet replicas = new ReplicaSet(9, new WriteLink[] {link(9101), link(9102)}, new int[] {0, 1},
                new StaleReplicas(10, 2));
        Replica first = replicas.members().get(0);
        Replica second = replicas.members().get(1);
        replicas.apply(new PartitionState(9, 5, first.node, Set.of(first.node), 3));
        assertThat(replicas.inSync(second)).isFalse();
        replicas.markDiverged(second, "diverged: holds another op under seq 2334");
        assertThat(replicas.needsRebuild(second)).isTrue();

        // Another root caught it up through the primary and joined it; then promoted it.
        replicas.apply(new PartitionState(9, 6, second.node, Set.of(first.node, second.node), 5));

        assertThat(replicas.inSync(second)).as("in sync, as stored").isTrue();
        assertThat(replicas.needsRebuild(second)).as("no rebuild of a stored in-sync copy").isFalse();
        assertThat(replicas.primary()).isSameAs(second);
        assertThat(replicas.inSyncNow()).containsExactly(first, second);
        assertThat(replicas.storedInSync(second)).isTrue();
    }
}
