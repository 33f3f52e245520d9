package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead log reads back what was synced, cuts off what was not, refuses to open over
 * damage to what was synced (acknowledged writes), and fails for good at its first I/O error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WriteLogTest {
    @TempDir
    Path dir;

    private static WriteOp op(long seq) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("doc-" + seq).setSeq(seq).build();
    }

    private static List<Long> seqs(List<WriteOp> ops) {
        return ops.stream().map(WriteOp::getSeq).toList();
    }

    @Test
    void readsBackEveryRecordInOrderAndFromASeq() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.append(List.of(op(3)));
            log.sync();
            assertThat(log.readFrom(1)).extracting(WriteOp::getSeq).containsExactly(2L, 3L);
        }
        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog log = WriteLog.open(file, replayed)) {
            log.append(List.of(op(4)));
            log.sync();
        }
        assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L);
    }

    @Test
    void aReadStopsAtItsByteCapButAlwaysAnswersOneOp() throws IOException {
        try (WriteLog log = WriteLog.open(dir.resolve("wal.log"), new ArrayList<>())) {
            log.append(List.of(op(1), op(2), op(3), op(4)));
            log.sync();
            int oneOp = op(1).getSerializedSize();
            assertThat(seqs(log.readFrom(0, 2L * oneOp))).containsExactly(1L, 2L);
            assertThat(seqs(log.readFrom(2, 1))).as("one op, however small the cap").containsExactly(3L);
            assertThat(seqs(log.readFrom(3, Long.MAX_VALUE))).containsExactly(4L);
        }
    }

    @Test
    void aReadFromASeqFindsItsFirstRecordAfterAReopenATrimAndAnAppend() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2), op(3), op(4)));
            log.sync();
        }
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            assertThat(seqs(log.readFrom(2))).containsExactly(3L, 4L);
            log.trim(2);
            assertThat(seqs(log.readFrom(3))).containsExactly(4L);
            log.append(List.of(op(5), op(6)));
            log.sync();
            assertThat(seqs(log.readFrom(4))).containsExactly(5L, 6L);
            assertThat(seqs(log.readFrom(0))).as("from below the log: all of it").containsExactly(3L, 4L, 5L, 6L);
            log.append(List.of(op(7)));
            assertThat(seqs(log.readFrom(6))).as("appended, not synced: not read").isEmpty();
        }
    }

    @Test
    void trimDropsTheRecordsAtOrBelowASeqKeepsTheRestAndAppendsAfterThem() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2), op(3), op(4), op(5)));
            log.sync();

            assertThat(log.trim(3)).isEqualTo(3);
            assertThat(log.trim(3)).as("nothing left to drop").isZero();
            log.append(List.of(op(6)));
            log.sync();
            assertThat(log.readFrom(0)).extracting(WriteOp::getSeq).containsExactly(4L, 5L, 6L);
        }
        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog ignored = WriteLog.open(file, replayed)) {
            assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(4L, 5L, 6L);
        }
        assertThat(Files.exists(dir.resolve("wal.log.trimmed"))).isFalse();
    }

    @Test
    void cutsOffWhatLiesBeyondTheSyncedEndAndAppendsAfterTheLastSyncedRecord() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
            log.append(List.of(op(3))); // never synced, so never acknowledged
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(Files.size(file) - 3); // and torn
        }

        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog log = WriteLog.open(file, replayed)) {
            assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L, 2L);
            log.append(List.of(op(3)));
            log.sync();
        }
        List<WriteOp> again = new ArrayList<>();
        WriteLog.open(file, again).close();
        assertThat(again).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L);
    }

    @Test
    void zerosBeyondTheSyncedEndAreCutOffNotReplayedAsEmptyOps() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
        }
        // A crash can leave a file longer than what was written to it, the rest zeros.
        Files.write(file, new byte[16], StandardOpenOption.APPEND);

        List<WriteOp> replayed = new ArrayList<>();
        WriteLog.open(file, replayed).close();
        assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L, 2L);
    }

    @Test
    void aDamagedRecordInsideTheSyncedRangeRefusesToOpenNamingTheFileAndOffset() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2), op(3)));
            log.sync();
        }
        byte[] bytes = Files.readAllBytes(file);
        int second = WriteLog.FILE_HEADER_BYTES + 8 + op(1).getSerializedSize();
        bytes[second + 8] ^= 0x55; // the second record's first byte: the third stays whole after it
        Files.write(file, bytes);

        assertThatThrownBy(() -> WriteLog.open(file, new ArrayList<>()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("damaged at offset " + second)
                .hasMessageContaining("rebuild this copy");
        assertThat(Files.readAllBytes(file)).as("nothing cut off").isEqualTo(bytes);
    }

    @Test
    void anAllZeroRecordHeaderInsideTheSyncedRangeIsDamageNotAnEmptyRecord() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
        }
        byte[] bytes = Files.readAllBytes(file);
        int second = WriteLog.FILE_HEADER_BYTES + 8 + op(1).getSerializedSize();
        for (int i = second; i < bytes.length; i++) {
            bytes[i] = 0; // the second record zeroed, header and all: CRC32C of nothing is 0
        }
        Files.write(file, bytes);

        assertThatThrownBy(() -> WriteLog.open(file, new ArrayList<>()))
                .hasMessageContaining("damaged at offset " + second);
    }

    @Test
    void aLogShorterThanItsCheckpointRefusesToOpen() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(Files.size(file) - 3);
        }
        assertThatThrownBy(() -> WriteLog.open(file, new ArrayList<>()))
                .hasMessageContaining("acknowledged writes are missing");
    }

    @Test
    void aLogOfVersion1IsReadAndRewrittenAsVersion2() throws IOException {
        Path file = dir.resolve("wal.log");
        ByteBuffer v1 = ByteBuffer.allocate(1024);
        for (long seq = 1; seq <= 3; seq++) {
            byte[] bytes = op(seq).toByteArray();
            CRC32C crc = new CRC32C();
            crc.update(bytes);
            v1.putInt(bytes.length).putInt((int) crc.getValue()).put(bytes);
        }
        v1.putInt(40).putInt(7).put((byte) 1); // a torn last record
        Files.write(file, java.util.Arrays.copyOf(v1.array(), v1.position()));

        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog log = WriteLog.open(file, replayed)) {
            log.append(List.of(op(4)));
            log.sync();
        }
        assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L);
        assertThat(ByteBuffer.wrap(Files.readAllBytes(file)).getInt(0)).isEqualTo(WriteLog.MAGIC);
        List<WriteOp> again = new ArrayList<>();
        WriteLog.open(file, again).close();
        assertThat(again).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void afterAFailedSyncTheLogRefusesEverythingAndNeverGivesOutTheSeqAgain() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(disk, file, new ArrayList<>())) {
            log.append(List.of(op(1)));
            log.sync();
            log.append(List.of(op(2)));
            disk.failNextForce();
            assertThatThrownBy(log::sync).hasMessageContaining("simulated fsync failure");

            assertThatThrownBy(() -> log.append(List.of(op(2))))
                    .hasMessageContaining("failed earlier").hasMessageContaining("simulated fsync failure");
            assertThatThrownBy(log::sync).hasMessageContaining("failed earlier");
            assertThat(log.failure()).isNotNull();
        }
        List<WriteOp> replayed = new ArrayList<>();
        try (WriteLog log = WriteLog.open(disk, file, replayed)) {
            assertThat(replayed).as("the unsynced record is cut off on opening again").extracting(WriteOp::getSeq)
                    .containsExactly(1L);
            log.append(List.of(op(2)));
            log.sync();
        }
        List<WriteOp> again = new ArrayList<>();
        WriteLog.open(file, again).close();
        assertThat(again).as("one record per seq").extracting(WriteOp::getSeq).containsExactly(1L, 2L);
    }

    @Test
    void afterAFailedWriteTheLogRefusesEverything() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        try (WriteLog log = WriteLog.open(disk, dir.resolve("wal.log"), new ArrayList<>())) {
            disk.failNextWrite();
            assertThatThrownBy(() -> log.append(List.of(op(1)))).hasMessageContaining("simulated write failure");
            assertThatThrownBy(() -> log.append(List.of(op(1)))).hasMessageContaining("failed earlier");
            assertThatThrownBy(() -> log.readFrom(0)).hasMessageContaining("failed earlier");
        }
    }

    @Test
    void syncedRecordsSurviveACrashThatDropsUnsyncedBytes() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        Path file = dir.resolve("wal.log");
        WriteLog log = WriteLog.open(disk, file, new ArrayList<>());
        log.append(List.of(op(1), op(2)));
        log.sync();
        log.append(List.of(op(3))); // appended, not synced: lost in the crash
        disk.crash();

        List<WriteOp> replayed = new ArrayList<>();
        WriteLog.open(disk, file, replayed).close();
        assertThat(replayed).as("what sync() made durable, and nothing else").extracting(WriteOp::getSeq)
                .containsExactly(1L, 2L);
    }

    @Test
    void aSyncCostsTwoFsyncsTheLogsAndItsCheckpointsAndSurvivesACrash() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        Path file = dir.resolve("wal.log");
        WriteLog log = WriteLog.open(disk, file, new ArrayList<>());
        log.append(List.of(op(1), op(2)));
        int before = disk.forces();
        log.sync();
        assertThat(disk.forces() - before).as("the log's fsync, then the checkpoint's in place; no directory sync")
                .isEqualTo(2);
        disk.crash();

        List<WriteOp> replayed = new ArrayList<>();
        WriteLog.open(disk, file, replayed).close();
        assertThat(replayed).as("the checkpoint rewritten in place was synced").extracting(WriteOp::getSeq)
                .containsExactly(1L, 2L);
    }

    @Test
    void aTornCheckpointRefusesToOpenRatherThanGuessWhatWasSynced() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
        }
        Path checkpoint = WriteLog.checkpointOf(file);
        byte[] bytes = Files.readAllBytes(checkpoint);
        bytes[12] ^= 0x01; // a rewrite in place that reached the disk in part: the synced offset's bytes
        Files.write(checkpoint, bytes);
        byte[] log = Files.readAllBytes(file);

        assertThatThrownBy(() -> WriteLog.open(file, new ArrayList<>()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(checkpoint.toString())
                .hasMessageContaining("corrupt");
        assertThat(Files.readAllBytes(file)).as("nothing cut off").isEqualTo(log);
    }

    @Test
    void theCrashableDiskLosesWhatWasNeverSynced() throws IOException {
        CrashableDisk disk = new CrashableDisk();
        Path file = dir.resolve("data");
        try (FileChannel channel = disk.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
            channel.force(false);
            disk.syncDirectory(dir);
            channel.write(ByteBuffer.wrap(new byte[] {4}), 3);
        }
        Path unnamed = dir.resolve("unnamed");
        try (FileChannel channel = disk.open(unnamed, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {9}), 0);
            channel.force(false); // synced, but its directory entry never was
        }
        disk.crash();
        assertThat(Files.readAllBytes(file)).containsExactly(1, 2, 3);
        assertThat(Files.exists(unnamed)).isFalse();
    }

    @Test
    void anEmptyOpIsNeverARecord() throws IOException {
        try (WriteLog log = WriteLog.open(dir.resolve("wal.log"), new ArrayList<>())) {
            assertThatThrownBy(() -> log.append(List.of(WriteOp.getDefaultInstance())))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
