package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
 * <p><b>Written in place, one fsync.</b> The file is created once, whole: written to a temporary
 * file, synced, renamed in and its directory synced, so its name is durable before anything relies on
 * it. After that, each successful sync of the log rewrites its 24 bytes at offset 0 and
 * syncs this file alone ({@code fdatasync}: its size and name do not change, so its directory need
 * not be synced again). Why that keeps every acknowledged write: the log is synced before its
 * checkpoint is written, so a checkpoint on the disk never claims bytes the log does not hold; and a
 * write is acknowledged only after the checkpoint's sync returns, so every acknowledged write lies
 * below the offset on the disk. A crash while the checkpoint is rewritten leaves the old one (the
 * log's records beyond it were never acknowledged, and are cut off), the new one, or, on a device
 * that does not write a sector atomically, a torn one, which fails its checksum: the log then refuses
 * to open, as over any corrupt checkpoint, and the copy is rebuilt from a replica; never a silent
 * loss. (Two alternating slots would spare that rebuild, but would take a damaged newest slot for a
 * torn one and fall back to the older slot, cutting off acknowledged writes without a word.)
 *
 * <p>Its format: magic, generation, synced offset, and the CRC32C of those.
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

    /**
     * Replaces the checkpoint in {@code file} with this one, durably: rewritten in place and synced,
     * or, when there is none yet, created whole (see the class comment).
     */
    void write(WalFiles files, Path file) throws IOException {
        FileChannel channel = writeKeepingOpen(files, file);
        if (channel != null) {
            channel.close();
        }
    }

    /**
     * As {@link #write}, returning the file's channel, open for writing, for the next rewrites in
     * place ({@link #writeTo}); null when the file was created whole (it had none to keep).
     */
    FileChannel writeKeepingOpen(WalFiles files, Path file) throws IOException {
        FileChannel channel;
        try {
            channel = files.open(file, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            files.replaceDurably(file, encode());
            return null;
        }
        try {
            writeTo(channel);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * As {@link #write}, through {@code channel}, open for writing on the existing checkpoint file: a
     * log keeps it open, as it rewrites its checkpoint after every sync.
     */
    void writeTo(FileChannel channel) throws IOException {
        WalRecords.writeFully(channel, encode(), 0);
        channel.force(false);
    }

    private ByteBuffer encode() {
        ByteBuffer buffer = ByteBuffer.allocate(BYTES).putInt(MAGIC).putLong(generation).putLong(syncedOffset);
        buffer.putInt(checksum(buffer.array()));
        return buffer.flip();
    }

    private static int checksum(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, BYTES - 4);
        return (int) crc.getValue();
    }
}
