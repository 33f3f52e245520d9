package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteOp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The records of a {@link WriteLog} file, as bytes: how a batch of operations is encoded, and how
 * records are read back and checked, in the current format and in version 1 (which a log of that
 * version is read with once, to be rewritten). The file around them (its header, its generations,
 * its checkpoint, what to cut off) is {@link WriteLog}'s.
 *
 * <p>A record: the operation's length (4 bytes, never 0: an all-zero header is not a record), the
 * CRC32C of the length and the operation's bytes (4 bytes), and the operation ({@link WriteOp}, with
 * its sequence number). Version 1's CRC covers the operation's bytes alone.
 */
final class WalRecords {
    static final int HEADER_BYTES = 8;
    /** Larger than any sane operation; a length above it is a torn or corrupt record. */
    private static final int MAX_RECORD_BYTES = 64 * 1024 * 1024;

    private WalRecords() {
    }

    /** The bytes {@code op}'s record takes. */
    static int size(WriteOp op) {
        return HEADER_BYTES + op.getSerializedSize();
    }

    /**
     * Reads the records between {@code position} and {@code limit} (which must end on a record)
     * with a seq above {@code fromSeq} into {@code into}, until they hold {@code maxBytes} of
     * operations (always at least one); notes where each record starts in {@code offsets} (if any).
     *
     * @throws IOException naming the file and offset of a damaged record
     */
    static void read(Path file, FileChannel channel, long position, long limit, long fromSeq,
            long maxBytes, List<WriteOp> into, SeqRing offsets) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        long bytes = 0;
        while (position < limit) {
            if (position + HEADER_BYTES > limit) {
                throw corrupt(file, position, limit, "a record header runs past the synced end");
            }
            header.clear();
            readFully(channel, header, position);
            int length = header.getInt(0);
            int crc = header.getInt(4);
            if (length <= 0 || length > MAX_RECORD_BYTES || position + HEADER_BYTES + length > limit) {
                throw corrupt(file, position, limit, "a record length of " + length);
            }
            ByteBuffer body = ByteBuffer.allocate(length);
            if (!readFully(channel, body, position + HEADER_BYTES) || crc32c(lengthBytes(length), body.array()) != crc) {
                throw corrupt(file, position, limit, "a checksum that does not match");
            }
            WriteOp op = WriteOp.parseFrom(body.array());
            if (offsets != null) {
                offsets.add(op.getSeq(), position);
            }
            if (op.getSeq() > fromSeq) {
                if (!into.isEmpty() && bytes + length > maxBytes) {
                    return;
                }
                into.add(op);
                bytes += length;
            }
            position += HEADER_BYTES + length;
        }
    }

    private static IOException corrupt(Path file, long position, long limit, String what) {
        return WriteLog.refused(file, "is damaged at offset " + position + " (" + what + "), inside the range its checkpoint"
                + " says was synced (up to offset " + limit + ")");
    }

    static boolean readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                return false;
            }
        }
        return true;
    }

    static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
        }
    }

    private static byte[] lengthBytes(int length) {
        return ByteBuffer.allocate(4).putInt(length).array();
    }

    private static int crc32c(byte[] prefix, byte[] bytes) {
        CRC32C crc = new CRC32C();
        if (prefix != null) {
            crc.update(prefix);
        }
        crc.update(bytes);
        return (int) crc.getValue();
    }

    static ByteBuffer encode(List<WriteOp> ops) {
        int total = 0;
        List<byte[]> encoded = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            byte[] bytes = op.toByteArray();
            if (bytes.length == 0) {
                throw new IllegalArgumentException("op: an empty operation (expected: one with a kind, id or seq)");
            }
            encoded.add(bytes);
            total += HEADER_BYTES + bytes.length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(total);
        for (byte[] bytes : encoded) {
            buffer.putInt(bytes.length).putInt(crc32c(lengthBytes(bytes.length), bytes)).put(bytes);
        }
        return buffer.flip();
    }

    /**
     * The operations of a log of version 1 (records from offset 0, a CRC of the operation's bytes
     * alone, no checkpoint). With no checkpoint, only a last record the end of the file cuts short
     * (or zeros to the end) counts as torn; any other damage refuses to open.
     */
    static List<WriteOp> readVersion1(WalFiles files, Path file) throws IOException {
        List<WriteOp> ops = new ArrayList<>();
        try (FileChannel old = files.open(file, StandardOpenOption.READ)) {
            long size = old.size();
            long position = 0;
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            while (position < size) {
                if (position + HEADER_BYTES > size || zerosToEnd(old, position, size)) {
                    break; // torn tail
                }
                header.clear();
                readFully(old, header, position);
                int length = header.getInt(0);
                int crc = header.getInt(4);
                if (length > 0 && length <= MAX_RECORD_BYTES && position + HEADER_BYTES + length > size) {
                    break; // torn tail
                }
                ByteBuffer body = length > 0 && length <= MAX_RECORD_BYTES ? ByteBuffer.allocate(length) : null;
                if (body == null || !readFully(old, body, position + HEADER_BYTES)
                        || crc32c(null, body.array()) != crc) {
                    throw WriteLog.refused(file, "(format version 1) has a damaged record at offset " + position + " of " + size
                            + " with whole data after it");
                }
                ops.add(WriteOp.parseFrom(body.array()));
                position += HEADER_BYTES + length;
            }
        }
        return ops;
    }

    private static boolean zerosToEnd(FileChannel channel, long position, long size) throws IOException {
        if (size - position > 1024 * 1024) {
            return false;
        }
        ByteBuffer rest = ByteBuffer.allocate((int) (size - position));
        readFully(channel, rest, position);
        for (byte b : rest.array()) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
