package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.leaf.search.IndexContext;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live copy on a {@link CrashableDisk}: what it acknowledged survives a crash that drops every
 * unsynced byte (so the fsync, not the page cache, keeps it), and a log that fails to sync fails
 * the copy, which then refuses every write until it is opened again, never numbering a seq twice.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LivePartitionFaultTest {
    @TempDir
    Path dir;
    private IndexContext index;
    private final CrashableDisk disk = new CrashableDisk();

    @BeforeEach
    void build() throws IOException {
        index = BuiltIndex.build(dir, "faults", 1);
    }

    private LivePartition open() throws IOException {
        return LivePartition.open(index, 0, dir.resolve("live/partition-0000"),
                index.store().partitionDir(index.manifest(), 0), searcher -> { }, disk);
    }

    private static WriteOp upsert(String id) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId(id)
                .addFields(StoredField.newBuilder().setName("title").setValue(id)).build();
    }

    @Test
    void acknowledgedWritesSurviveACrashThatDropsEveryUnsyncedByte() throws IOException {
        LivePartition live = open();
        List<WriteResult> acknowledged = live.write(List.of(upsert("a"), upsert("b"), upsert("c")), true);
        assertThat(acknowledged).extracting(WriteResult::getSeq).containsExactly(1L, 2L, 3L);
        disk.crash();
        live.closeWithoutCommit();

        LivePartition recovered = open();
        try {
            assertThat(recovered.lastSeq()).isEqualTo(3);
            for (String id : List.of("a", "b", "c")) {
                assertThat(recovered.get(id).getOutcome()).as(id).isEqualTo(WriteOutcome.FOUND);
            }
        } finally {
            recovered.close();
        }
    }

    /**
     * The primary hands a batch's numbered ops to its replicas before its own log syncs them (so the
     * fsyncs overlap): when that sync then fails, the batch is still not acknowledged, the copy takes
     * no more writes, and the replica that took the op is told apart by content once the reopened
     * primary numbers another op under the same seq (diverged: rebuilt, never skipped).
     */
    @Test
    void anOpCopiedBeforeThePrimarysSyncFailsIsNeverAcknowledgedAndTheReplicaHoldingItIsSeenToDiverge()
            throws IOException {
        LivePartition primary = open();
        LivePartition replica = LivePartition.open(index, 0, dir.resolve("replica/partition-0000"),
                index.store().partitionDir(index.manifest(), 0), searcher -> { });
        try {
            List<WriteOp> sent = new ArrayList<>();
            LivePartition.Numbered copyToReplica = numbered -> {
                sent.addAll(numbered);
                replica.write(numbered, false);
            };
            assertThat(primary.write(List.of(upsert("a")), true, copyToReplica)).extracting(WriteResult::getSeq)
                    .containsExactly(1L);
            disk.failNextForce();
            assertThatThrownBy(() -> primary.write(List.of(upsert("lost")), true, copyToReplica))
                    .isInstanceOf(IOException.class).hasMessageContaining("none was applied");
            assertThat(sent).as("handed on before the sync").extracting(WriteOp::getId).containsExactly("a", "lost");
            assertThat(replica.lastSeq()).as("the replica took it").isEqualTo(2);
            assertThatThrownBy(() -> primary.write(List.of(upsert("next")), true, copyToReplica))
                    .hasMessageContaining("failed earlier");
            assertThat(sent).as("a failed copy hands nothing on").hasSize(2);
            disk.crash();
            primary.closeWithoutCommit();

            LivePartition reopened = open();
            try {
                assertThat(reopened.lastSeq()).as("the unsynced op is gone").isEqualTo(1);
                assertThat(reopened.get("lost").getOutcome()).isEqualTo(WriteOutcome.NOT_FOUND);
                assertThatThrownBy(() -> reopened.write(List.of(upsert("other")), true, copyToReplica))
                        .as("seq 2 is another op on the replica").hasMessageContaining(LivePartition.DIVERGED);
                assertThat(reopened.write(List.of(upsert("other")), true)).as("a failed hand-on logged nothing")
                        .extracting(WriteResult::getSeq).containsExactly(2L);
            } finally {
                reopened.close();
            }
        } finally {
            replica.close();
        }
    }

    @Test
    void aCopyWhoseLogFailsToSyncRefusesEveryFurtherWriteAndNeverNumbersASeqTwice() throws IOException {
        LivePartition live = open();
        assertThat(live.write(List.of(upsert("a")), true)).extracting(WriteResult::getSeq).containsExactly(1L);
        disk.failNextForce();
        assertThatThrownBy(() -> live.write(List.of(upsert("lost")), true))
                .isInstanceOf(IOException.class).hasMessageContaining("none was applied");
        assertThatThrownBy(() -> live.write(List.of(upsert("next")), true))
                .hasMessageContaining("failed earlier").hasMessageContaining("opened again or rebuilt");
        assertThatThrownBy(() -> live.write(List.of(upsert("lost").toBuilder().setSeq(2).build()), false))
                .as("as replica too").hasMessageContaining("failed earlier");
        assertThat(live.lastSeq()).isEqualTo(1);
        live.closeWithoutCommit();

        LivePartition reopened = open();
        try {
            assertThat(reopened.lastSeq()).isEqualTo(1);
            assertThat(reopened.write(List.of(upsert("next")), true)).extracting(WriteResult::getSeq).containsExactly(2L);
            assertThat(reopened.logFrom(0)).as("one op per seq").extracting(WriteOp::getId).containsExactly("a", "next");
            assertThat(reopened.get("lost").getOutcome()).as("refused, so never applied").isEqualTo(WriteOutcome.NOT_FOUND);
        } finally {
            reopened.close();
        }
    }
}
