package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a {@link WriteLog} tells its {@link WalMeters}: one call per appended batch and per sync,
 * what it holds (synced records, and their bytes: the file less its header) through appends, trims,
 * closes and reopenings, the records read back at opening, and each I/O error that failed it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WalMetersTest {
    @TempDir
    Path dir;

    /** Sums what it is told, as the leaf's meters do. */
    static final class Recorded implements WalMeters {
        long appends;
        long appendedRecords;
        long appendedBytes;
        long syncs;
        long heldRecords;
        long heldBytes;
        long trims;
        long trimmedRecords;
        long replayed;
        long failures;

        @Override
        public void appended(int records, long bytes) {
            appends++;
            appendedRecords += records;
            appendedBytes += bytes;
        }

        @Override
        public void synced(long nanos) {
            assertThat(nanos).isNotNegative();
            syncs++;
        }

        @Override
        public void held(long records, long bytes) {
            heldRecords += records;
            heldBytes += bytes;
        }

        @Override
        public void trimmed(int records) {
            trims++;
            trimmedRecords += records;
        }

        @Override
        public void replayed(int records) {
            replayed += records;
        }

        @Override
        public void failed() {
            failures++;
        }
    }

    private static WriteOp op(long seq) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("doc-" + seq).setSeq(seq).build();
    }

    private static long recordBytes(Path file) throws IOException {
        return Files.size(file) - WriteLog.FILE_HEADER_BYTES;
    }

    @Test
    void countsBatchesSyncsWhatTheLogHoldsTrimsAndReplays() throws IOException {
        Recorded meters = new Recorded();
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(WalFiles.SYSTEM, file, new ArrayList<>(), meters)) {
            assertThat(meters.replayed).isZero();
            assertThat(meters.heldRecords).isZero();
            assertThat(meters.heldBytes).isZero();

            log.append(List.of(op(1), op(2)));
            log.append(List.of(op(3)));
            assertThat(meters.heldRecords).as("nothing held before the sync").isZero();
            log.sync();
            assertThat(meters.appends).as("one per batch, not per op").isEqualTo(2);
            assertThat(meters.appendedRecords).isEqualTo(3);
            assertThat(meters.appendedBytes).isEqualTo(recordBytes(file)).isPositive();
            assertThat(meters.syncs).isEqualTo(1);
            assertThat(meters.heldRecords).isEqualTo(3);
            assertThat(meters.heldBytes).isEqualTo(recordBytes(file));

            assertThat(log.trim(2)).isEqualTo(2);
            assertThat(meters.trims).isEqualTo(1);
            assertThat(meters.trimmedRecords).isEqualTo(2);
            assertThat(meters.heldRecords).isEqualTo(1);
            assertThat(meters.heldBytes).isEqualTo(recordBytes(file)).isLessThan(meters.appendedBytes);
            assertThat(log.trim(2)).as("nothing left to drop").isZero();
            assertThat(meters.trims).as("a trim that dropped nothing rewrote nothing").isEqualTo(1);
        }
        assertThat(meters.heldRecords).as("a closed log holds nothing the leaf serves").isZero();
        assertThat(meters.heldBytes).isZero();

        Recorded reopened = new Recorded();
        try (WriteLog log = WriteLog.open(WalFiles.SYSTEM, file, new ArrayList<>(), reopened)) {
            assertThat(reopened.replayed).isEqualTo(1);
            assertThat(reopened.heldRecords).isEqualTo(1);
            assertThat(reopened.heldBytes).isEqualTo(recordBytes(file));
            log.close();
            log.close();
            assertThat(reopened.heldRecords).as("closed twice, taken off once").isZero();
        }
        assertThat(reopened.heldBytes).isZero();
    }

    @Test
    void countsTheIoErrorThatFailedTheLogAndNotTheRefusalsAfterIt() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        Recorded meters = new Recorded();
        try (WriteLog log = WriteLog.open(disk, dir.resolve("wal.log"), new ArrayList<>(), meters)) {
            log.append(List.of(op(1)));
            disk.failNextForce();
            assertThatThrownBy(log::sync).hasMessageContaining("simulated fsync failure");
            assertThatThrownBy(log::sync).hasMessageContaining("failed earlier");
            assertThat(meters.failures).isEqualTo(1);
            assertThat(meters.syncs).as("a failed sync is not timed").isZero();
            assertThat(meters.heldRecords).as("nothing was synced").isZero();
        }
    }
}
