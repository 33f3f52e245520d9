package io.hedgerow.leaf.write;

import java.io.IOException;
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
}
