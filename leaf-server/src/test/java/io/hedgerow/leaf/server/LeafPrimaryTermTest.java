package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf fences deposed primaries: a write request carrying a primary term older than one the
 * partition's copy has accepted is refused with {@code STALE_TERM} (nothing written, no seq used),
 * also after the leaf restarts on its port (the term is on disk beside the copy's log), while term 0
 * (a root without a coordination store) stays unchecked. A real leaf over a real socket.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafPrimaryTermTest {
    private static final String INDEX = "terms";
    private static final int PARTITION = 0;

    @TempDir
    Path dir;

    @RegisterExtension
    final WritingLeaf leaf = new WritingLeaf(INDEX, 1);

    private WriteResponse write(FrameSocket root, long term, String id) throws IOException {
        long requestId = leaf.nextRequestId();
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(requestId).setPartition(PARTITION)
                .setPrimary(true).setPrimaryTerm(term).addOps(LeafWritesTest.upsert(id, "a term's write"))).build());
        WriteResponse answer = root.receive().getWriteResult();
        assertThat(answer.getRequestId()).isEqualTo(requestId);
        return answer;
    }

    private WriteResponse lastSeq(FrameSocket root, long term) throws IOException {
        long requestId = leaf.nextRequestId();
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(requestId).setPartition(PARTITION)
                .setPrimaryTerm(term).setFromSeq(Long.MAX_VALUE)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG))).build());
        return root.receive().getWriteResult();
    }

    @Test
    void anOlderTermIsRefusedBeforeAndAfterARestartAndTermZeroIsNotChecked() throws IOException {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, 1);
        FrameSocket root = leaf.start(store, 0);

        assertThat(write(root, 1, "term-1").getStatus()).isEqualTo(Status.OK);
        WriteResponse promoted = write(root, 3, "term-3");
        assertThat(promoted.getStatus()).isEqualTo(Status.OK);
        assertThat(promoted.getPrimaryTerm()).isEqualTo(3);
        assertThat(promoted.getLastSeq()).isEqualTo(2);

        WriteResponse stale = write(root, 2, "deposed");
        assertThat(stale.getStatus()).isEqualTo(Status.STALE_TERM);
        assertThat(stale.getError()).contains("partition 0").contains("term 3").contains("term 2");
        assertThat(stale.getResultsCount()).as("nothing written").isZero();
        assertThat(stale.getPrimaryTerm()).isEqualTo(3);
        assertThat(lastSeq(root, 3).getLastSeq()).as("no seq used by the refused write").isEqualTo(2);

        root = leaf.restart(store);

        WriteResponse afterRestart = write(root, 2, "deposed-after-restart");
        assertThat(afterRestart.getStatus()).as("the accepted term survived the restart").isEqualTo(Status.STALE_TERM);
        assertThat(afterRestart.getPrimaryTerm()).isEqualTo(3);
        assertThat(lastSeq(root, 0).getLastSeq()).isEqualTo(2);
        assertThat(write(root, 0, "no-term").getStatus()).as("term 0: a root without terms").isEqualTo(Status.OK);
        assertThat(write(root, 3, "same-term").getStatus()).isEqualTo(Status.OK);
        assertThat(write(root, 4, "next-term").getPrimaryTerm()).isEqualTo(4);
    }
}
