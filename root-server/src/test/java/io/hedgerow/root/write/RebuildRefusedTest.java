package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.write.ReplicaSet.Replica;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root whose view of a partition is stale (a zombie root, a paused one resuming: its stored state
 * says term 4 with the copy on leaf 1 primary, and the copy on leaf 0 diverged) asks leaf 0 to rebuild
 * its copy, while leaf 0 took writes as the primary of term 4. The leaf refuses ({@code REBUILD_REFUSED});
 * the root keeps the leaf's documents, does not count a failed catch-up or mark anything, reads the
 * stored state again (after the refusal, as before each RESTORE), and asks no rebuild again in that
 * term; in a newer term (a promotion that deposed leaf 0's copy) the rebuild runs. Two real leaves
 * over loopback, real Lucene; the test drives the root's {@link ReplicaCatchUp} directly.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RebuildRefusedTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aRebuildTheLeafRefusesIsNeitherFailedNorAskedAgainInItsTermAndRereadsTheStoredState(@TempDir Path data)
            throws Exception {
        EventLoopGroup group = Transport.best().newGroup(1, "test-rebuild-refused");
        try (EmbeddedCluster cluster = EmbeddedCluster.builder(data)
                .documents("refused", IndexConfig.defaults(), TestData.documents(3, 20))
                .leaves(2).partitions(1).replicas(2).start()) {
            ClusterState state = cluster.root().cluster();
            WriteLink first = link(group, state, cluster.leaves().get(0).port());
            WriteLink second = link(group, state, cluster.leaves().get(1).port());
            // Leaf 0 is the primary of term 4, as far as it knows: it numbered three writes in that term.
            WriteResponse numbered = first.send(WriteRequest.newBuilder().setPartition(0).setPrimary(true)
                    .setPrimaryTerm(4).addOps(upsert("kept-0")).addOps(upsert("kept-1")).addOps(upsert("kept-2")),
                    PATIENCE).join();
            assertThat(numbered.getStatus()).as(numbered.getError()).isEqualTo(Status.OK);
            long lastSeq = numbered.getLastSeq();

            ReplicaSet replicas = new ReplicaSet(0, new WriteLink[] {first, second}, new int[] {0, 1},
                    new StaleReplicas(1, 2));
            Replica zero = replicas.members().get(0);
            Replica one = replicas.members().get(1);
            replicas.apply(new PartitionState(0, 4, one.node, Set.of(one.node), 7));
            replicas.markDiverged(zero, "diverged: a stale view of it");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            AtomicInteger rereads = new AtomicInteger();
            ReplicaCatchUp catchUps = new ReplicaCatchUp(replicas, WriteSettings.defaults(), new WriteMeters(registry),
                    () -> {
                        rereads.incrementAndGet();
                        return CompletableFuture.completedFuture(null);
                    }, Ticker.system());

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing ready").isEmpty();
            // Once right before the RESTORE (StaleRestoreTest), once after the refusal.
            assertThat(rereads).as("the stored state read again").hasValue(2);
            assertThat(failedCatchUps(registry)).as("not a failed catch-up").isZero();
            assertThat(registry.get("hedgerow.write.rebuilds.refused").tag("reason", "newer_term").counter().count())
                    .as("the leaf's reason: primary in the term").isEqualTo(1);
            assertThat(problemOf(replicas, zero)).contains("refused a rebuild in term 4").contains("primary of term 4");
            assertThat(get(first, "kept-2").getOutcome()).as("the primary's documents survive").isEqualTo(WriteOutcome.FOUND);
            assertThat(lastSeq(first)).isEqualTo(lastSeq);

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEmpty();
            assertThat(rereads).as("no rebuild asked again in term 4").hasValue(2);
            assertThat(failedCatchUps(registry)).isZero();

            // A promotion in term 5 deposed leaf 0's copy: now it may be rebuilt from the new primary's.
            replicas.apply(new PartitionState(0, 5, one.node, Set.of(one.node), 8));
            List<ReplicaCatchUp.Ready> ready = catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(ready).extracting(ReplicaCatchUp.Ready::replica).as(problemOf(replicas, zero)).containsExactly(zero);
            assertThat(rereads).as("once before the RESTORE").hasValue(3);
            assertThat(registry.get("hedgerow.write.snapshot.restores").counter().count()).isEqualTo(1);
            first.close();
            second.close();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static WriteLink link(EventLoopGroup group, ClusterState state, int port) {
        return new WriteLink(new LeafAddress("127.0.0.1", port), group, Transport.best().channelClass(),
                state.rootHello(), state.config().maxFrameBytes(), state.linkTls());
    }

    private static WriteOp upsert(String id) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("dunnock " + id)).build();
    }

    private static io.hedgerow.common.wire.proto.WriteResult get(WriteLink leaf, String id) {
        WriteResponse answer = leaf.send(WriteRequest.newBuilder().setPartition(0)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id)), PATIENCE).join();
        assertThat(answer.getStatus()).as(answer.getError()).isEqualTo(Status.OK);
        return answer.getResults(0);
    }

    private static long lastSeq(WriteLink leaf) {
        return leaf.send(ReplicaCatchUp.readLog(WriteRequest.newBuilder().setPartition(0), Long.MAX_VALUE), PATIENCE)
                .join().getLastSeq();
    }

    private static double failedCatchUps(SimpleMeterRegistry registry) {
        return registry.get("hedgerow.write.catchups").tag("result", "failed").counter().count();
    }

    private static String problemOf(ReplicaSet replicas, Replica replica) {
        return replicas.status().stream().filter(r -> r.leaf().equals(replica.address())).findFirst().orElseThrow()
                .problem();
    }
}
