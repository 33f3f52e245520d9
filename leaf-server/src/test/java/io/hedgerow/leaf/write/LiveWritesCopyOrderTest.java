package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.ReplicaTarget;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.search.IndexContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary's batch goes to its replica before the primary's own log holds it (so the two fsyncs
 * overlap), and is answered only once both are done: the replica's copy is sent while the primary's
 * last seq is still the one before the batch, and the answer waits for the replica's.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LiveWritesCopyOrderTest {
    private static final ReplicaTarget REPLICA = ReplicaTarget.newBuilder().setNode("b").setAddress("leaf-b:1").build();

    @TempDir
    Path dir;
    private LiveWrites primary;
    private LivePartition copy;
    /** The primary's last seq each time it sent a copy (read on the sending thread, under the copy's lock). */
    private final List<Long> lastSeqAtSend = new ArrayList<>();
    private final List<WriteRequest> sent = new ArrayList<>();
    private final CompletableFuture<WriteResponse> replicaAnswer = new CompletableFuture<>();

    @BeforeEach
    void start() throws IOException {
        IndexContext index = BuiltIndex.build(dir, "order", 5);
        primary = new LiveWrites(index, LiveSettings.defaults().withNodeId("a"), (partition, searcher) -> { },
                partition -> partition == 0);
        primary.start(BuiltIndex.liveDir(index), 0, PeerFiles.NONE, (address, request, timeoutNanos) -> {
            lastSeqAtSend.add(copy.lastSeq());
            sent.add(request);
            return replicaAnswer;
        });
        copy = primary.openCopy(0);
    }

    @AfterEach
    void stop() {
        primary.close();
    }

    @Test
    void theCopyLeavesBeforeThePrimaryLogsTheBatchAndTheAnswerWaitsForBoth() throws Exception {
        WriteRequest.Builder batch = WriteRequest.newBuilder().setPartition(0).setPrimary(true).setPrimaryTerm(1)
                .setPrimaryNode("a").addCopyTo(REPLICA);
        for (String id : List.of("x", "y", "z")) {
            batch.addOps(WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                    .addFields(StoredField.newBuilder().setName("title").setValue(id)));
        }
        CompletableFuture<WriteResponse> answer = primary.answerAsync(batch.build());

        assertThat(lastSeqAtSend).as("sent before the primary's log took the batch").containsExactly(0L);
        assertThat(sent.get(0).getOpsList()).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L);
        assertThat(sent.get(0).getPrimary()).isFalse();
        assertThat(copy.lastSeq()).as("then logged, synced and applied here").isEqualTo(3);
        assertThat(answer).as("not answered before the replica").isNotDone();

        replicaAnswer.complete(WriteResponse.newBuilder().setStatus(Status.OK).setLastSeq(3).build());
        WriteResponse answered = answer.get(30, TimeUnit.SECONDS);
        assertThat(answered.getStatus()).as(answered.getError()).isEqualTo(Status.OK);
        assertThat(answered.getResultsList()).extracting(WriteResult::getSeq).containsExactly(1L, 2L, 3L);
        assertThat(answered.getReplicaFailuresList()).isEmpty();
    }
}
