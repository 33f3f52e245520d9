package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf's own guard against being rebuilt over acknowledged writes: a RESTORE sent to the copy that
 * took writes as the partition's primary in the request's term (a zombie root, a paused root resuming,
 * with a view in which that copy is out of sync) is refused with {@code REBUILD_REFUSED} and its
 * documents survive, also after the leaf restarts; a replica that fell behind is still rebuilt from
 * the primary's snapshot, and so is a deposed primary once a newer term asks. Two real leaves on
 * separate stores over loopback sockets, real Lucene indexes; the test plays the root.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RebuildGuardTest {
    private static final String INDEX = "guard";
    private static final long TERM = 4;

    @TempDir
    Path dir;
    @RegisterExtension
    final WritingLeaf primaryLeaf = new WritingLeaf(INDEX, 1);
    @RegisterExtension
    final WritingLeaf replicaLeaf = new WritingLeaf(INDEX, 1);
    private PartitionStore primaryStore;
    private FrameSocket primary;
    private FrameSocket replica;

    /** The primary of {@link #TERM} took w-0..w-4 (seq 1..5); the replica got only the first two copies. */
    @BeforeEach
    void start() throws IOException {
        PrimaryAheadOfReplica copies = PrimaryAheadOfReplica.start(dir, INDEX, TERM, primaryLeaf, replicaLeaf);
        primaryStore = copies.primaryStore();
        primary = copies.primary();
        replica = copies.replica();
    }

    @Test
    void aRestoreSentToThePrimaryOfItsTermIsRefusedAndItsDocumentsSurvive() throws IOException {
        // A stale root sees the replica as the one to copy from and the primary's copy as behind.
        String behind = snapshot(replicaLeaf, replica, TERM);

        WriteResponse refused = restore(primaryLeaf, primary, TERM, behind, replicaLeaf);
        assertThat(refused.getStatus()).as(refused.getError()).isEqualTo(Status.REBUILD_REFUSED);
        assertThat(refused.getRebuildRefusal()).as("said for the root").isEqualTo(RebuildRefusal.PRIMARY_IN_TERM);
        assertThat(refused.getError()).contains("partition 0").contains("primary of term 4").contains("carries term 4");
        assertThat(restore(primaryLeaf, primary, TERM - 1, behind, replicaLeaf).getStatus()).as("an older term")
                .isEqualTo(Status.STALE_TERM);

        assertSurvived(primaryLeaf, primary, 5);
        primary = primaryLeaf.restart(primaryStore);
        assertThat(restore(primaryLeaf, primary, TERM, behind, replicaLeaf).getStatus())
                .as("the term it was primary in is on disk: refused after a restart too").isEqualTo(Status.REBUILD_REFUSED);
        assertSurvived(primaryLeaf, primary, 5);
        WriteResponse next = primaryLeaf.call(primary, request(TERM).setPrimary(true)
                .addOps(LeafWritesTest.upsert("w-5", "still the primary")));
        assertThat(next.getLastSeq()).as("it goes on numbering as the primary").isEqualTo(6);
    }

    @Test
    void aReplicaBehindIsStillRebuiltAndADeposedPrimaryIsInANewerTerm() throws IOException {
        String fromPrimary = snapshot(primaryLeaf, primary, TERM);
        WriteResponse rebuilt = restore(replicaLeaf, replica, TERM, fromPrimary, primaryLeaf);
        assertThat(rebuilt.getStatus()).as(rebuilt.getError()).isEqualTo(Status.OK);
        assertThat(rebuilt.getLastSeq()).isEqualTo(5);
        assertThat(get(replicaLeaf, replica, TERM, "w-4").getOutcome()).isEqualTo(WriteOutcome.FOUND);

        // A promotion in term 5 makes the rebuilt replica primary; the old primary, deposed, may be rebuilt.
        WriteResponse promoted = replicaLeaf.call(replica, request(TERM + 1).setPrimary(true)
                .addOps(LeafWritesTest.upsert("w-5", "the new primary's first")));
        assertThat(promoted.getLastSeq()).isEqualTo(6);
        String fromNewPrimary = snapshot(replicaLeaf, replica, TERM + 1);
        WriteResponse deposed = restore(primaryLeaf, primary, TERM + 1, fromNewPrimary, replicaLeaf);
        assertThat(deposed.getStatus()).as(deposed.getError()).isEqualTo(Status.OK);
        assertThat(deposed.getLastSeq()).isEqualTo(6);
        assertThat(get(primaryLeaf, primary, TERM + 1, "w-5").getOutcome()).isEqualTo(WriteOutcome.FOUND);
        assertThat(restore(replicaLeaf, replica, TERM + 1, fromPrimary, primaryLeaf).getStatus())
                .as("and the new primary is guarded in its term").isEqualTo(Status.REBUILD_REFUSED);
    }

    private static void assertSurvived(WritingLeaf leaf, FrameSocket root, long lastSeq) throws IOException {
        for (int i = 0; i < 5; i++) {
            assertThat(get(leaf, root, TERM, "w-" + i).getOutcome()).as("w-" + i).isEqualTo(WriteOutcome.FOUND);
        }
        WriteResponse probe = leaf.call(root, request(TERM).setFromSeq(Long.MAX_VALUE)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG)));
        assertThat(probe.getLastSeq()).isEqualTo(lastSeq);
    }

    private static String snapshot(WritingLeaf leaf, FrameSocket root, long term) throws IOException {
        WriteResponse made = leaf.call(root, request(term).addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT)));
        assertThat(made.getStatus()).as(made.getError()).isEqualTo(Status.OK);
        return made.getSnapshot();
    }

    private static WriteResponse restore(WritingLeaf leaf, FrameSocket root, long term, String snapshot,
            WritingLeaf source) throws IOException {
        return leaf.call(root, request(term).setSnapshot(snapshot).setSourceAddress(source.server().address())
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE)));
    }

    private static io.hedgerow.common.wire.proto.WriteResult get(WritingLeaf leaf, FrameSocket root, long term,
            String id) throws IOException {
        return leaf.call(root, request(term).addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id))).getResults(0);
    }

    private static WriteRequest.Builder request(long term) {
        return WriteRequest.newBuilder().setPartition(0).setPrimaryTerm(term);
    }
}
