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
