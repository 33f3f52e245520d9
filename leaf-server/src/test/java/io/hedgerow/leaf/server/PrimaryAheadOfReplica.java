package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The start of the RESTORE tests: two real leaves taking writes to a one-partition index, on separate
 * stores (the replica's a copy of the primary's, in {@code dir/a} and {@code dir/b}); the primary of a
 * term took w-0..w-4 (seq 1..5), the replica got only the first two copies (seq 1..2), so it is behind
 * and may be rebuilt from the primary's snapshot. The test plays the root on the two connections.
 */
record PrimaryAheadOfReplica(PartitionStore primaryStore, PartitionStore replicaStore, FrameSocket primary,
        FrameSocket replica) {
    /** Writes taken by the primary before the test. */
    static final int WRITES = 5;
    /** Copies of them the replica got. */
    static final int COPIED = 2;

    /** Starts {@code primaryLeaf} and {@code replicaLeaf} on an index named {@code index} and writes in {@code term}. */
    static PrimaryAheadOfReplica start(Path dir, String index, long term, WritingLeaf primaryLeaf,
            WritingLeaf replicaLeaf) throws IOException {
        PartitionStore primaryStore = TestLeaves.hedgerowIndex(dir.resolve("a"), index, 1);
        PartitionStore replicaStore = new PartitionStore(TestLeaves.copyTree(dir.resolve("a"), dir.resolve("b")));
        FrameSocket primary = primaryLeaf.start(primaryStore, 0);
        FrameSocket replica = replicaLeaf.start(replicaStore, 0);
        WriteRequest.Builder batch = request(term).setPrimary(true);
        for (int i = 0; i < WRITES; i++) {
            batch.addOps(upsert(i));
        }
        WriteResponse numbered = primaryLeaf.call(primary, batch);
        assertThat(numbered.getStatus()).as(numbered.getError()).isEqualTo(Status.OK);
        assertThat(numbered.getLastSeq()).isEqualTo(WRITES);
        WriteResponse copied = replicaLeaf.call(replica, copies(term, 1, COPIED));
        assertThat(copied.getStatus()).as(copied.getError()).isEqualTo(Status.OK);
        assertThat(copied.getLastSeq()).isEqualTo(COPIED);
        return new PrimaryAheadOfReplica(primaryStore, replicaStore, primary, replica);
    }

    /** Write {@code i}: w-i, "a hedge sparrow i". */
    static WriteOp upsert(int i) {
        return LeafWritesTest.upsert("w-" + i, "a hedge sparrow " + i);
    }

    /** The primary's copies of seqs {@code from..to} (w-(seq-1)) in {@code term}, as a replica gets them. */
    static WriteRequest.Builder copies(long term, int from, int to) {
        WriteRequest.Builder copies = request(term).setPrimary(false);
        for (int seq = from; seq <= to; seq++) {
            copies.addOps(upsert(seq - 1).toBuilder().setSeq(seq));
        }
        return copies;
    }

    private static WriteRequest.Builder request(long term) {
        return WriteRequest.newBuilder().setPartition(0).setPrimaryTerm(term);
    }
}
