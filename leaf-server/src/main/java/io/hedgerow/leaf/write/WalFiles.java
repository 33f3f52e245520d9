package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The file operations a {@link WriteLog} and its {@link WalCheckpoint} make, so a test can put a
 * simulated disk under them (one that forgets what was not synced when it "crashes") and catch a
 * missing {@code fsync}. Production: {@link #SYSTEM}, the JDK's own.
 */
interface WalFiles {
    WalFiles SYSTEM = new WalFiles() {
        @Override
        public FileChannel open(Path file, OpenOption... options) throws IOException {
            return FileChannel.open(file, options);
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    };

    FileChannel open(Path file, OpenOption... options) throws IOException;

    /** Renames {@code from} over {@code to}, atomically where the file system can; durable after {@link #syncDirectory}. */
    void move(Path from, Path to) throws IOException;

    /** Makes the directory's entries (files created, renamed or deleted in it) durable. */
    void syncDirectory(Path dir) throws IOException;

    /**
     * Replaces {@code file} with {@code content} whole and durably: written to a temporary file beside
     * it, synced, renamed over it and its directory synced, so a crash leaves the old file or the new
     * one, never a part of either, and the name is durable when this returns.
     */
    default void replaceDurably(Path file, ByteBuffer content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel channel = open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            WalRecords.writeFully(channel, content, 0);
            channel.force(false);
        }
        move(tmp, file);
        syncDirectory(file.getParent());
    }
}
