package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RESTORE decided on a stale view must not replace a copy that caught up while its snapshot was
 * pulled (durability seed 34: one root's snapshot catch-up of a replica ran for 18 s while the other
 * root caught the same replica up by the log; the swap then dropped acknowledged writes). The pull is
 * held at the source's first answer (a relay in front of the source leaf) while the test, playing the
 * other root and the primary, feeds the replica; then the pull goes on. Two real leaves on separate
 * stores over loopback sockets, real Lucene indexes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RestoreWhileFedTest {
    private static final String INDEX = "fed";
    private static final long TERM = 4;

    @TempDir
    Path dir;
    @RegisterExtension
    final WritingLeaf primaryLeaf = new WritingLeaf(INDEX, 1);
    @RegisterExtension
    final WritingLeaf replicaLeaf = new WritingLeaf(INDEX, 1);
    private PartitionStore replicaStore;
    private FrameSocket primary;
    private FrameSocket replica;

    /** The primary of {@link #TERM} took w-0..w-4 (seq 1..5); the replica got only the first two copies. */
    @BeforeEach
    void start() throws IOException {
        PrimaryAheadOfReplica copies = PrimaryAheadOfReplica.start(dir, INDEX, TERM, primaryLeaf, replicaLeaf);
        replicaStore = copies.replicaStore();
        primary = copies.primary();
        replica = copies.replica();
    }

    @Test
    void aCopyCaughtUpWhileTheSnapshotIsPulledRefusesTheSwapAndKeepsItsWrites() throws Exception {
        String snapshot = snapshotOfPrimary();
        try (HeldPull pull = new HeldPull()) {
            long restoreId = sendRestore(snapshot, pull.relay.address());
            pull.awaitHeld();
            // Meanwhile the other root catches the replica up by the log, and the primary's next
            // write (seq 6, acknowledged once the replica has it) reaches it: the snapshot lacks it.
            assertThat(replicaLeaf.call(replica, copies(3, 5)).getLastSeq()).isEqualTo(5);
            WriteResponse next = primaryLeaf.call(primary, request().setPrimary(true)
                    .addOps(PrimaryAheadOfReplica.upsert(5)));
            assertThat(next.getLastSeq()).isEqualTo(6);
            assertThat(replicaLeaf.call(replica, copies(6, 6)).getLastSeq()).isEqualTo(6);
            pull.release();

            WriteResponse refused = WritingLeaf.answer(replica, restoreId);
            assertThat(refused.getStatus()).as(refused.getError()).isEqualTo(Status.REBUILD_REFUSED);
            assertThat(refused.getRebuildRefusal()).as("said for the root").isEqualTo(RebuildRefusal.FED_DURING_PULL);
            assertThat(refused.getError()).contains("partition 0").contains("took writes while snapshot " + snapshot)
                    .contains("from 2 to 6");
        }
        assertThat(probe().getLastSeq()).as("the copy kept what it took").isEqualTo(6);
        for (int i = 0; i < 6; i++) {
            assertThat(get("w-" + i).getOutcome()).as("w-" + i).isEqualTo(WriteOutcome.FOUND);
        }
        assertThat(staged()).as("the pulled files are deleted, not kept to resume").isEmpty();
        assertThat(replicaLeaf.call(replica, copies(7, 7)).getLastSeq()).as("it goes on as a replica").isEqualTo(7);
    }

    /**
     * A RESTORE decided when the replica was at seq 1 arrives at a copy at seq 2: fed since the
     * decision, it is refused before anything is pulled, and the answer says so for the root
     * ({@code FED_SINCE_DECISION}, held for that attempt only).
     */
    @Test
    void aCopyFedSinceTheDecisionRefusesTheRestoreOnArrivalAndSaysWhy() throws Exception {
        String snapshot = snapshotOfPrimary();
        WriteResponse refused = replicaLeaf.call(replica, request().setSnapshot(snapshot)
                .setSourceAddress(primaryLeaf.server().address()).setExpectedLastSeq(1)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));

        assertThat(refused.getStatus()).as(refused.getError()).isEqualTo(Status.REBUILD_REFUSED);
        assertThat(refused.getRebuildRefusal()).isEqualTo(RebuildRefusal.FED_SINCE_DECISION);
        assertThat(refused.getError()).contains("here is at seq 2, not at the seq 1").contains("nothing was pulled");
        assertThat(staged()).as("nothing pulled").isEmpty();
        assertThat(probe().getLastSeq()).isEqualTo(2);
    }

    @Test
    void aCopyThatTakesNoWriteWhileTheSnapshotIsPulledIsStillRebuilt() throws Exception {
        String snapshot = snapshotOfPrimary();
        try (HeldPull pull = new HeldPull()) {
            long restoreId = sendRestore(snapshot, pull.relay.address());
            pull.awaitHeld();
            // A copy behind refuses a write past a gap: its last seq stays, so nothing it holds is lost.
            WriteResponse gap = replicaLeaf.call(replica, copies(4, 4));
            assertThat(gap.getStatus()).isEqualTo(Status.ERROR);
            assertThat(gap.getError()).startsWith("replica behind");
            pull.release();

            WriteResponse rebuilt = WritingLeaf.answer(replica, restoreId);
            assertThat(rebuilt.getStatus()).as(rebuilt.getError()).isEqualTo(Status.OK);
            assertThat(rebuilt.getLastSeq()).isEqualTo(5);
        }
        assertThat(get("w-4").getOutcome()).isEqualTo(WriteOutcome.FOUND);
    }

    /**
     * A relay in front of the primary leaf that holds the source's first answer to the recovering
     * replica (its snapshot listing) until {@link #release}: the pull is in flight meanwhile.
     */
    private final class HeldPull implements AutoCloseable {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        final FrameRelay relay;

        HeldPull() throws IOException {
            AtomicBoolean first = new AtomicBoolean(true);
            relay = new FrameRelay(primaryLeaf.server().port(), frame -> {
                if (frame.hasWriteResult() && first.compareAndSet(true, false)) {
                    held.countDown();
                    try {
                        released.await(1, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return frame;
            });
        }

        void awaitHeld() throws InterruptedException {
            assertThat(held.await(1, TimeUnit.MINUTES)).as("the replica started pulling").isTrue();
        }

        void release() {
            released.countDown();
        }

        @Override
        public void close() throws IOException {
            released.countDown();
            relay.close();
        }
    }

    private String snapshotOfPrimary() throws IOException {
        WriteResponse made = primaryLeaf.call(primary, request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT)));
        assertThat(made.getStatus()).as(made.getError()).isEqualTo(Status.OK);
        assertThat(made.getLastSeq()).isEqualTo(5);
        return made.getSnapshot();
    }

    /** Sends the RESTORE without waiting for its answer; returns its request id. */
    private long sendRestore(String snapshot, String source) throws IOException {
        long id = replicaLeaf.nextRequestId();
        replica.send(Frame.newBuilder().setWrite(request().setSnapshot(snapshot).setSourceAddress(source)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)).setRequestId(id)).build());
        return id;
    }

    /** The primary's copies of seqs {@code from..to} (w-(seq-1)), as the replica gets them. */
    private static WriteRequest.Builder copies(int from, int to) {
        return PrimaryAheadOfReplica.copies(TERM, from, to);
    }

    private WriteResponse probe() throws IOException {
        return replicaLeaf.call(replica, request().setFromSeq(Long.MAX_VALUE)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG)));
    }

    private io.hedgerow.common.wire.proto.WriteResult get(String id) throws IOException {
        return replicaLeaf.call(replica, request().addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id)))
                .getResults(0);
    }

    /** The replica's staging directories of pulls (recovery/partition-NNNN) under its live directory. */
    private java.util.List<Path> staged() throws IOException {
        try (Stream<Path> paths = Files.walk(replicaStore.liveDir())) {
            return paths.filter(path -> path.getParent() != null
                    && path.getParent().getFileName().toString().equals("recovery")).toList();
        }
    }

    private static WriteRequest.Builder request() {
        return WriteRequest.newBuilder().setPartition(0).setPrimaryTerm(TERM);
    }
}
