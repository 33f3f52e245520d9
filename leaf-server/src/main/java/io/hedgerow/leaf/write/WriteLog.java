package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One partition's write-ahead log: every operation a leaf acknowledges is here, synced to the
 * disk ({@code fsync}), before the acknowledgement leaves. A record is the operation's length (4
 * bytes), the CRC32C of its bytes (4 bytes) and the operation ({@link WriteOp}, with its sequence
 * number). Opening the log reads it whole and cuts off a torn tail (a record a crash left half
 * written, whose length or checksum does not hold): such a record was never synced, so never
 * acknowledged.
 *
 * <p>Group commit: {@link #append} writes a whole batch and {@link #sync} makes it durable with one
 * {@code force}, so the cost of an fsync is shared by every operation of the batch (the root sends
 * a partition's writes in batches).
 *
 * <p><b>Trimming.</b> {@link #trim} drops the records at or below a seq by writing the rest to a new
 * file, syncing it and renaming it over the log (then syncing the directory): a crash leaves either
 * the old log or the new one whole, never a mix. Its {@link LivePartition} trims only below what it
 * has committed to Lucene and what every replica holds.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its {@link LivePartition} calls it under
 * its own lock.
 */
final class WriteLog implements Closeable {
    private static final int HEADER_BYTES = 8;
    /** Larger than any sane operation; a length above it is a torn or corrupt record. */
    private static final int MAX_RECORD_BYTES = 64 * 1024 * 1024;

    private final Path file;
    private FileChannel channel;
    private long end;

    private WriteLog(Path file, FileChannel channel, long end) {
        this.file = file;
        this.channel = channel;
        this.end = end;
    }

    /**
     * Opens (or creates) the log and reads every whole record in it into {@code replayed}, in
     * order, cutting off a torn tail.
     */
    static WriteLog open(Path file, List<WriteOp> replayed) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            long end = readRecords(channel, 0, replayed);
            if (end < channel.size()) {
                channel.truncate(end);
                channel.force(true);
            }
            channel.position(end);
            return new WriteLog(file, channel, end);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Reads whole records from {@code position}; returns where the last whole one ends. */
    private static long readRecords(FileChannel channel, long position, List<WriteOp> into) throws IOException {
        long size = channel.size();
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        while (position + HEADER_BYTES <= size) {
            header.clear();
            channel.read(header, position);
            header.flip();
            int length = header.getInt();
            int crc = header.getInt();
            if (length < 0 || length > MAX_RECORD_BYTES || position + HEADER_BYTES + length > size) {
                break;
            }
            ByteBuffer body = ByteBuffer.allocate(length);
            while (body.hasRemaining() && channel.read(body, position + HEADER_BYTES + body.position()) > 0) {
                // read until full
            }
            if (body.hasRemaining() || checksum(body.array(), length) != crc) {
                break;
            }
            into.add(WriteOp.parseFrom(body.array()));
            position += HEADER_BYTES + length;
        }
        return position;
    }

    private static int checksum(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /** Writes the operations at the end of the log; not durable until {@link #sync}. */
    void append(List<WriteOp> ops) throws IOException {
        int total = 0;
        List<byte[]> encoded = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            byte[] bytes = op.toByteArray();
            encoded.add(bytes);
            total += HEADER_BYTES + bytes.length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(total);
        for (byte[] bytes : encoded) {
            buffer.putInt(bytes.length).putInt(checksum(bytes, bytes.length)).put(bytes);
        }
        buffer.flip();
        long position = end;
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
        end = position;
    }

    /** Makes everything appended durable. */
    void sync() throws IOException {
        channel.force(false);
    }

    /** The logged operations with a seq above {@code fromSeq}, in order. */
    List<WriteOp> readFrom(long fromSeq) throws IOException {
        List<WriteOp> all = new ArrayList<>();
        readRecords(channel, 0, all);
        return all.stream().filter(op -> op.getSeq() > fromSeq).toList();
    }

    /**
     * Drops every record with a seq at or below {@code seq}.
     *
     * @return how many were dropped
     */
    int trim(long seq) throws IOException {
        List<WriteOp> all = new ArrayList<>();
        readRecords(channel, 0, all);
        List<WriteOp> kept = all.stream().filter(op -> op.getSeq() > seq).toList();
        if (kept.size() == all.size()) {
            return 0;
        }
        Path next = file.resolveSibling(file.getFileName() + ".trimmed");
        Files.deleteIfExists(next);
        FileChannel trimmed = FileChannel.open(next, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        long trimmedEnd;
        try {
            WriteLog writer = new WriteLog(next, trimmed, 0);
            if (!kept.isEmpty()) {
                writer.append(kept);
            }
            trimmed.force(true);
            trimmedEnd = writer.end;
            Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            trimmed.close();
            throw e;
        }
        // The new file is the log from here on, whatever the directory sync says.
        channel.close();
        channel = trimmed;
        end = trimmedEnd;
        channel.position(end);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
        return all.size() - kept.size();
    }

    Path file() {
        return file;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
