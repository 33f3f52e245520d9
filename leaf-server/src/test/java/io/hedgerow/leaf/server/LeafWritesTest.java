package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.index.Partitioner;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes over a real socket into a real Lucene index: a write is logged and answered with its seq,
 * searchable after a refresh, readable by id at once; an update replaces, a delete removes, an
 * expected version that does not match is a conflict; a replica takes the primary's numbers and
 * skips a resend; a leaf restarted on its port serves its writes again from its live copy.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafWritesTest {
    private static final String INDEX = "writes";
    private static final int PARTITIONS = 2;
    private static final Partitioner PARTITIONER = new Partitioner(PARTITIONS);

    @TempDir
    Path dir;

    @RegisterExtension
    final WritingLeaf leaf = new WritingLeaf(INDEX, PARTITIONS);

    @Test
    void aWriteIsSearchableAfterARefreshAndAnUpdateReplacesItAndADeleteRemovesIt() throws IOException {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        FrameSocket root = leaf.start(store, 0);
        int partition = PARTITIONER.partitionOf("new-1");

        WriteResponse created = write(root, partition, true, true, upsert("new-1", "a kingfisher on the brook"));
        assertThat(created.getStatus()).isEqualTo(Status.OK);
        assertThat(created.getResults(0).getOutcome()).isEqualTo(WriteOutcome.CREATED);
        assertThat(created.getResults(0).getSeq()).isEqualTo(1);
        assertThat(ids(search(root, partition, "kingfisher"))).containsExactly("new-1");

        WriteResponse updated = write(root, partition, true, true, upsert("new-1", "a heron on the brook"));
        assertThat(updated.getResults(0).getOutcome()).isEqualTo(WriteOutcome.UPDATED);
        assertThat(updated.getResults(0).getSeq()).isEqualTo(2);
        assertThat(ids(search(root, partition, "kingfisher"))).isEmpty();
        assertThat(ids(search(root, partition, "heron"))).containsExactly("new-1");

        WriteResponse conflict = write(root, partition, true, false,
                upsert("new-1", "a swan").toBuilder().setExpectedVersion(1).build());
        assertThat(conflict.getResults(0).getOutcome()).isEqualTo(WriteOutcome.CONFLICT);
        assertThat(conflict.getResults(0).getError()).isEqualTo("document 'new-1' is at version 2 (expected: 1)");

        WriteResponse deleted = write(root, partition, true, true,
                WriteOp.newBuilder().setKind(WriteKind.DELETE).setId("new-1").setExpectedVersion(2).build());
        assertThat(deleted.getResults(0).getOutcome()).isEqualTo(WriteOutcome.DELETED);
        assertThat(ids(search(root, partition, "heron"))).isEmpty();
        assertThat(get(root, partition, "new-1").getOutcome()).isEqualTo(WriteOutcome.NOT_FOUND);
        assertThat(deleted.getLastSeq()).isEqualTo(3);
    }

    @Test
    void aGetByIdSeesAWriteBeforeAnyRefreshAndABadDocumentIsRejectedAlone() throws IOException {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        FrameSocket root = leaf.start(store, 0);
        int partition = PARTITIONER.partitionOf("doc-3");

        WriteResponse batch = write(root, partition, true, false, upsert("doc-3", "rewritten hawthorn"),
                WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("").build());

        assertThat(batch.getResults(0).getOutcome()).isEqualTo(WriteOutcome.UPDATED);
        assertThat(batch.getResults(1).getOutcome()).isEqualTo(WriteOutcome.REJECTED);
        assertThat(batch.getResults(1).getSeq()).as("nothing written, no number used").isZero();
        var found = get(root, partition, "doc-3");
        assertThat(found.getOutcome()).isEqualTo(WriteOutcome.FOUND);
        assertThat(found.getVersion()).isEqualTo(1);
        assertThat(found.getFieldsList()).contains(StoredField.newBuilder().setName("body").setValue("rewritten hawthorn").build());
    }

    @Test
    void aReplicaTakesThePrimarysNumbersAcceptsAResendRefusesADivergedOpAndAGapAndServesItsWritesAfterARestart()
            throws IOException {
        PartitionStore store = TestLeaves.hedgerowIndex(dir.resolve(INDEX), INDEX, PARTITIONS);
        FrameSocket root = leaf.start(store, 0);
        int partition = PARTITIONER.partitionOf("new-7");
        WriteOp numbered = upsert("new-7", "an otter in the reeds").toBuilder().setSeq(1).build();

        assertThat(write(root, partition, false, true, numbered).getLastSeq()).isEqualTo(1);
        assertThat(write(root, partition, false, true, numbered).getLastSeq()).as("the same op again").isEqualTo(1);
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(leaf.nextRequestId()).setPartition(partition)
                .addOps(numbered.toBuilder().setFields(0, StoredField.newBuilder().setName("body")
                        .setValue("another op under seq 1")))).build());
        WriteResponse diverged = root.receive().getWriteResult();
        assertThat(diverged.getStatus()).as("never skipped as a resend").isEqualTo(Status.ERROR);
        assertThat(diverged.getError()).startsWith("diverged: ");
        assertThat(ids(search(root, partition, "otter"))).containsExactly("new-7");
        root.send(Frame.newBuilder().setWrite(WriteRequest.newBuilder().setRequestId(leaf.nextRequestId()).setPartition(partition)
                .addOps(upsert("new-9", "a gap").toBuilder().setSeq(5))).build());
        WriteResponse gap = root.receive().getWriteResult();
        assertThat(gap.getStatus()).isEqualTo(Status.ERROR);
        assertThat(gap.getError()).startsWith("replica behind: its last seq is 1 and was sent seq 5");
        WriteResponse log = readLog(root, partition, 0);
        assertThat(log.getLogList()).extracting(WriteOp::getSeq).containsExactly(1L);

        FrameSocket again = leaf.restart(store);

        assertThat(ids(search(again, partition, "otter"))).containsExactly("new-7");
        WriteResponse next = write(again, partition, true, false, upsert("new-8", "a vole"));
        assertThat(next.getResults(0).getSeq()).as("numbers go on after a restart").isEqualTo(2);
    }

    static WriteOp upsert(String id, String body) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue("live " + id))
                .addFields(StoredField.newBuilder().setName("body").setValue(body)).build();
    }

    private WriteResponse write(FrameSocket root, int partition, boolean primary, boolean waitForRefresh,
            WriteOp... ops) throws IOException {
        return call(root, WriteRequest.newBuilder().setPartition(partition).setPrimary(primary)
                .setWaitForRefresh(waitForRefresh).addAllOps(List.of(ops)));
    }

    private io.hedgerow.common.wire.proto.WriteResult get(FrameSocket root, int partition, String id) throws IOException {
        WriteResponse response = call(root, WriteRequest.newBuilder().setPartition(partition)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.GET).setId(id)));
        assertThat(response.getStatus()).isEqualTo(Status.OK);
        return response.getResults(0);
    }

    private WriteResponse readLog(FrameSocket root, int partition, long fromSeq) throws IOException {
        return call(root, WriteRequest.newBuilder().setPartition(partition).setFromSeq(fromSeq)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG)));
    }

    private WriteResponse call(FrameSocket root, WriteRequest.Builder request) throws IOException {
        long id = leaf.nextRequestId();
        root.send(Frame.newBuilder().setWrite(request.setRequestId(id)).build());
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.WRITE_RESULT);
        assertThat(answer.getWriteResult().getRequestId()).isEqualTo(id);
        assertThat(answer.getWriteResult().getError()).isEmpty();
        return answer.getWriteResult();
    }

    private SearchResponse search(FrameSocket root, int partition, String query) throws IOException {
        long id = leaf.nextRequestId();
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(id).setPartition(partition)
                .setQuery(query).setK(10).setTotalHitsThreshold(100)).build());
        Frame answer = root.receive();
        assertThat(answer.getResult().getStatus()).isEqualTo(Status.OK);
        return answer.getResult();
    }

    private static List<String> ids(SearchResponse response) {
        return response.getHitsList().stream().map(io.hedgerow.common.wire.proto.Hit::getId).toList();
    }
}
