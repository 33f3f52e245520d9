package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write-ahead log reads back what was appended, and cuts off a record a crash left half written. */
class WriteLogTest {
    @TempDir
    Path dir;

    private static WriteOp op(long seq) {
        return WriteOp.newBuilder().setKind(WriteKind.UPSERT).setId("doc-" + seq).setSeq(seq).build();
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
        }
        assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L, 2L, 3L);
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
    void cutsOffATornTailAndAppendsAfterTheLastWholeRecord() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2), op(3)));
            log.sync();
        }
        long whole = Files.size(file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(whole - 3);
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
    void aCorruptRecordEndsTheLog() throws IOException {
        Path file = dir.resolve("wal.log");
        try (WriteLog log = WriteLog.open(file, new ArrayList<>())) {
            log.append(List.of(op(1), op(2)));
            log.sync();
        }
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= 0x55;
        Files.write(file, bytes);

        List<WriteOp> replayed = new ArrayList<>();
        WriteLog.open(file, replayed).close();
        assertThat(replayed).extracting(WriteOp::getSeq).containsExactly(1L);
    }
}
