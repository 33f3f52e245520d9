package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.ManualTicker;
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
import io.hedgerow.root.LinkRelay;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline of durability seed 34, with two roots: this root decides to rebuild a replica from a
 * snapshot of the primary's copy, while "the other root" (played by the test) catches the same
 * replica up by the log, the primary acknowledges a write the replica holds, and the replica joins
 * the stored in-sync set. No acknowledged write may be lost: either this root, reading the stored
 * state again right before the RESTORE, does not send it, or the leaf, fed while it pulled, refuses
 * the swap. Two real leaves over loopback, real Lucene; the test drives this root's
 * {@link ReplicaCatchUp} directly.
 *
 * <p>Leaf 0 is the primary of term 4 with three writes (seq 1..3); leaf 1 holds seq 1..2 and this
 * root's view has it diverged (to rebuild), out of the stored in-sync set {leaf 0}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StaleRestoreTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final long TERM = 4;

    @TempDir
    Path data;

    @Test
    void aReplicaThatJoinedBeforeTheRestoreIsSentIsNotRebuilt() throws Exception {
        try (Leaves leaves = new Leaves(data, false)) {
            AtomicInteger rereads = new AtomicInteger();
            // The reread right before the RESTORE finds the other root's work done: caught up, joined.
            ReplicaCatchUp catchUps = leaves.catchUps(() -> {
                rereads.incrementAndGet();
                // Off the event loop the reread is asked on: the other root's calls wait for answers.
                return CompletableFuture.runAsync(leaves::otherRootCatchesUpAndJoins);
            });

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(rereads).as("read again before the RESTORE").hasValue(1);
            assertThat(leaves.restores()).as("no RESTORE sent").isZero();
            assertThat(leaves.failedCatchUps()).as("not a failed catch-up").isZero();
            leaves.assertReplicaKeptTheAcknowledgedWrite();
        }
    }

    @Test
    void aReplicaFedWhileItPullsRefusesTheRestoreAndNoAcknowledgedWriteIsLost() throws Exception {
        try (Leaves leaves = new Leaves(data, true)) {
            AtomicInteger rereads = new AtomicInteger();
            ReplicaCatchUp catchUps = leaves.catchUps(() -> {
                rereads.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            });

            CompletableFuture<java.util.List<ReplicaCatchUp.Ready>> advanced = catchUps.advance();
            // The replica is pulling the snapshot (held at the source's first answer): the other root acts.
            assertThat(leaves.relay.held.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the pull started").isTrue();
            leaves.otherRootCatchesUpAndJoins();
            leaves.relay.release();

            assertThat(advanced.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(leaves.restores()).as("the leaf refused the swap").isZero();
            assertThat(leaves.failedCatchUps()).as("not a failed catch-up").isZero();
            assertThat(rereads).as("read again before the RESTORE and after the refusal").hasValue(2);
            assertThat(leaves.replicas.rebuildRefusedInThisTerm(leaves.one)).as("refused for that attempt only")
                    .isFalse();
            assertThat(leaves.refusedRebuilds("fed_during_pull")).as("the leaf's reason").isEqualTo(1);
            leaves.assertReplicaKeptTheAcknowledgedWrite();
        }
    }

    /**
     * The other root catches the replica up by the log between this root's probe and its RESTORE, and
     * its join reaches the store only after this root's reread: the reread sees the replica out of
     * sync, the RESTORE goes, and nothing is written while it pulls. The RESTORE carries the seq the
     * decision was made on (2), the copy is at 4: the leaf refuses at once. Before, the leaf compared
     * with the seq it found on arrival (4), the swap went ahead and dropped seq 3..4 from a copy the
     * store was about to list in sync (review of restore41, finding 1).
     */
    @Test
    void aReplicaFedBeforeTheRestoreArrivesRefusesItEvenWhenNothingIsWrittenDuringThePull() throws Exception {
        try (Leaves leaves = new Leaves(data, false)) {
            AtomicInteger rereads = new AtomicInteger();
            ReplicaCatchUp catchUps = leaves.catchUps(() -> {
                if (rereads.incrementAndGet() == 1) {
                    // Before the RESTORE: fed and acknowledged, but the join not stored yet.
                    return CompletableFuture.runAsync(leaves::otherRootCatchesUp);
                }
                leaves.otherRootJoins(); // stored by the time this root reads again after the refusal
                return CompletableFuture.completedFuture(null);
            });

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(leaves.restores()).as("the leaf refused the RESTORE").isZero();
            assertThat(leaves.failedCatchUps()).as("not a failed catch-up").isZero();
            assertThat(rereads).as("read again before the RESTORE and after the refusal").hasValue(2);
            leaves.assertReplicaKeptTheAcknowledgedWrite();
        }
    }

    /**
     * As above, and no other root ever stores the join: the replica stays out of sync and diverged in this
     * root's view. The refusal (fed since the decision, as the leaf's rebuild_refusal says) is counted by
     * that reason, and the next catch-up round, a moment later, asks no rebuild (no snapshot of the
     * source, no reread): it waits for the backoff, a second after a first refusal. Then the rebuild runs.
     * Before, every round (each second) asked the rebuild again at once, and nothing counted the refusals.
     */
    @Test
    void aRebuildRefusedBecauseTheCopyWasFedIsAskedAgainOnlyAfterABackoffAndCountedByReason() throws Exception {
        try (Leaves leaves = new Leaves(data, false)) {
            AtomicInteger rereads = new AtomicInteger();
            ManualTicker ticker = new ManualTicker().advance(Duration.ofHours(1));
            ReplicaCatchUp catchUps = leaves.catchUps(() -> rereads.incrementAndGet() == 1
                    ? CompletableFuture.runAsync(leaves::otherRootCatchesUp)
                    : CompletableFuture.completedFuture(null), ticker);

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(leaves.restores()).as("the leaf refused the RESTORE").isZero();
            assertThat(leaves.refusedRebuilds("fed_since_decision")).as("counted by reason").isEqualTo(1);
            assertThat(leaves.refusedRebuilds("fed_during_pull")).isZero();
            assertThat(leaves.refusedRebuilds("newer_term")).isZero();
            assertThat(rereads).as("read again before the RESTORE and after the refusal").hasValue(2);

            ticker.advance(Duration.ofMillis(999));
            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("backing off").isEmpty();
            assertThat(rereads).as("no rebuild asked within the backoff").hasValue(2);
            assertThat(leaves.restores()).isZero();

            ticker.advance(Duration.ofMillis(1));
            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .extracting(ReplicaCatchUp.Ready::replica).as("rebuilt after the backoff").containsExactly(leaves.one);
            assertThat(rereads).as("read again before that RESTORE").hasValue(3);
            assertThat(leaves.restores()).isEqualTo(1);
            assertThat(leaves.refusedRebuilds("fed_since_decision")).isEqualTo(1);
            assertThat(leaves.failedCatchUps()).as("not a failed catch-up").isZero();
        }
    }

    /**
     * This root saw the replica diverge while the store still lists it in sync (another root caught it
     * up): no rebuild is asked, and that is no failed catch-up, only logged, as when the reread right
     * before the RESTORE finds it so. Before, found before the snapshot, it counted as a failed
     * catch-up (review 42, finding 12).
     */
    @Test
    void aReplicaTheStoreListsInSyncIsNotRebuiltAndNoCatchUpFailed() throws Exception {
        try (Leaves leaves = new Leaves(data, false)) {
            AtomicInteger rereads = new AtomicInteger();
            ReplicaCatchUp catchUps = leaves.catchUps(() -> {
                rereads.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            });
            leaves.replicas.apply(new PartitionState(0, TERM, leaves.zero.node,
                    Set.of(leaves.zero.node, leaves.one.node), 8));
            leaves.replicas.markDiverged(leaves.one, "diverged: this root's view, not the store's");

            assertThat(catchUps.advance().get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("nothing to join").isEmpty();
            assertThat(rereads).as("no snapshot made, so no reread before a RESTORE").hasValue(0);
            assertThat(leaves.restores()).isZero();
            assertThat(leaves.failedCatchUps()).as("not a failed catch-up").isZero();
        }
    }

    /** The two leaves, this root's view of partition 0, and the other root's moves. */
    private static final class Leaves implements AutoCloseable {
        final EventLoopGroup group = Transport.best().newGroup(1, "test-stale-restore");
        final EmbeddedCluster cluster;
        final WriteLink first;
        final WriteLink second;
        /** Between this root (and the pulling replica) and leaf 0; null when not asked for. */
        final LinkRelay relay;
        final ReplicaSet replicas;
        final Replica zero;
        final Replica one;
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final AtomicReference<PartitionState> storedNow = new AtomicReference<>();

        Leaves(Path data, boolean relayed) throws Exception {
            cluster = EmbeddedCluster.builder(data)
                    .documents("stale", IndexConfig.defaults(), TestData.documents(3, 20))
                    .leaves(2).partitions(1).replicas(2).start();
            ClusterState state = cluster.root().cluster();
            int firstPort = cluster.leaves().get(0).port();
            relay = relayed ? new LinkRelay(firstPort) : null;
            if (relayed) {
                // The first connection is this root's link; the next, the replica pulling the snapshot.
                relay.holdFirstAnswers(1);
            }
            first = link(state, relayed ? relay.port() : firstPort);
            second = link(state, cluster.leaves().get(1).port());
            WriteResponse numbered = first.send(request().setPrimary(true).addOps(upsert("kept-0"))
                    .addOps(upsert("kept-1")).addOps(upsert("kept-2")), PATIENCE).join();
            assertThat(numbered.getStatus()).as(numbered.getError()).isEqualTo(Status.OK);
            assertThat(numbered.getLastSeq()).isEqualTo(3);
            copy(1, 2);

            replicas = new ReplicaSet(0, new WriteLink[] {first, second}, new int[] {0, 1}, new StaleReplicas(1, 2));
            zero = replicas.members().get(0);
            one = replicas.members().get(1);
            replicas.apply(new PartitionState(0, TERM, zero.node, Set.of(zero.node), 7));
            replicas.markDiverged(one, "diverged: this root's stale view of it");
        }

        ReplicaCatchUp catchUps(java.util.function.Supplier<CompletableFuture<?>> reread) {
            return catchUps(reread, Ticker.system());
        }

        ReplicaCatchUp catchUps(java.util.function.Supplier<CompletableFuture<?>> reread, Ticker ticker) {
            // As StoredReplicas.reread: the state stored now (the other root's join, once made) is applied.
            return new ReplicaCatchUp(replicas, WriteSettings.defaults(), new WriteMeters(registry),
                    () -> reread.get().thenRun(() -> {
                        PartitionState stored = storedNow.get();
                        if (stored != null) {
                            replicas.apply(stored);
                        }
                    }), ticker);
        }

        /**
         * The other root: copies seq 3 to leaf 1 (caught up by the log), has the primary number
         * kept-3 (seq 4) and copies it, acknowledged once leaf 1 holds it, and stores leaf 1 in the
         * in-sync set (this root sees it at its next reread).
         */
        void otherRootCatchesUpAndJoins() {
            otherRootCatchesUp();
            otherRootJoins();
        }

        /** The other root's catch-up of leaf 1 by the log, and the write the primary acknowledges. */
        void otherRootCatchesUp() {
            copy(3, 3);
            WriteResponse numbered = first.send(request().setPrimary(true).addOps(upsert("kept-3")), PATIENCE).join();
            assertThat(numbered.getStatus()).as(numbered.getError()).isEqualTo(Status.OK);
            assertThat(numbered.getLastSeq()).isEqualTo(4);
            copy(4, 4);
        }

        /** The other root stores leaf 1 in the in-sync set. */
        void otherRootJoins() {
            storedNow.set(new PartitionState(0, TERM, zero.node, Set.of(zero.node, one.node), 8));
        }

        /** Leaf 1 holds seq 4 and kept-3, and this root counts it in sync. */
        void assertReplicaKeptTheAcknowledgedWrite() {
            WriteResponse probe = second.send(ReplicaCatchUp.readLog(request(), Long.MAX_VALUE), PATIENCE).join();
            assertThat(probe.getLastSeq()).as("leaf 1's last seq").isEqualTo(4);
            WriteResponse got = second.send(request().addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId("kept-3")),
                    PATIENCE).join();
            assertThat(got.getResults(0).getOutcome()).as("the acknowledged write on leaf 1").isEqualTo(WriteOutcome.FOUND);
            assertThat(replicas.inSync(one)).as("in sync, as the store says").isTrue();
        }

        /** The primary's copies of kept-(seq-1) for seqs from..to, sent to leaf 1. */
        void copy(int from, int to) {
            WriteRequest.Builder copies = request().setPrimary(false);
            for (int seq = from; seq <= to; seq++) {
                copies.addOps(upsert("kept-" + (seq - 1)).toBuilder().setSeq(seq));
            }
            WriteResponse copied = second.send(copies, PATIENCE).join();
            assertThat(copied.getStatus()).as(copied.getError()).isEqualTo(Status.OK);
            assertThat(copied.getLastSeq()).isEqualTo(to);
        }

        double restores() {
            return registry.get("hedgerow.write.snapshot.restores").counter().count();
        }

        double refusedRebuilds(String reason) {
            return registry.get("hedgerow.write.rebuilds.refused").tag("reason", reason).counter().count();
        }

        double failedCatchUps() {
            return registry.get("hedgerow.write.catchups").tag("result", "failed").counter().count();
        }

        private WriteLink link(ClusterState state, int port) {
            return new WriteLink(new LeafAddress("127.0.0.1", port), group, Transport.best().channelClass(),
                    state.rootHello(), state.config().maxFrameBytes(), state.linkTls());
        }

        @Override
        public void close() throws Exception {
            first.close();
            second.close();
            if (relay != null) {
                relay.close();
            }
            cluster.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static WriteRequest.Builder request() {
        return WriteRequest.newBuilder().setPartition(0).setPrimaryTerm(TERM);
    }

    private static WriteOp upsert(String id) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("dunnock " + id)).build();
    }
}
