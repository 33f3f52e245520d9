package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * How far a {@link WriteLog} is known to be on the disk: the offset up to which its records were
 * synced (every acknowledged write lies below it) in the log file of a given generation (a trim
 * rewrites the log as the next generation). A checksum failure below this offset is corruption of
 * acknowledged writes, and the log refuses to open; only bytes beyond it (never acknowledged) may be
 * cut off.
 *
 * <p>Written after each successful sync of the log, atomically: to a temporary file, synced, renamed
 * over the checkpoint, and the directory synced. Its format: magic, generation, synced offset, and
 * the CRC32C of those.
 */
record WalCheckpoint(long generation, long syncedOffset) {
    private static final int MAGIC = 0x48524350; // "HRCP"
    private static final int BYTES = 4 + 8 + 8 + 4;

    WalCheckpoint {
        if (generation < 1 || syncedOffset < 0) {
            throw new IllegalArgumentException("checkpoint: generation " + generation + ", synced offset "
                    + syncedOffset + " (expected: generation >= 1, offset >= 0)");
        }
    }

    /** The checkpoint in {@code file}, or null when there is none; an unreadable one is an error. */
    static WalCheckpoint read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != BYTES || buffer.getInt(0) != MAGIC || buffer.getInt(BYTES - 4) != checksum(bytes)) {
            throw new IOException("write-ahead log checkpoint " + file + " is corrupt (" + bytes.length
                    + " bytes; expected: " + BYTES + " with magic and checksum): the synced end of the log is unknown,"
                    + " so it is not opened; rebuild this copy (delete " + file.getParent()
                    + " and let the root catch it up from another replica)");
        }
        return new WalCheckpoint(buffer.getLong(4), buffer.getLong(12));
    }

    /** Replaces the checkpoint in {@code file} with this one, durably. */
    void write(WalFiles files, Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(BYTES).putInt(MAGIC).putLong(generation).putLong(syncedOffset);
        buffer.putInt(checksum(buffer.array()));
        buffer.flip();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel channel = files.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        }
        files.move(tmp, file);
        files.syncDirectory(file.getParent());
    }

    private static int checksum(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, BYTES - 4);
        return (int) crc.getValue();
    }
}
