package io.hedgerow.leaf.index;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Locks on build directories: a leaf holds a shared lock on the build it serves for as long as it
 * runs, and a rebuild deletes an old build only after taking an exclusive lock on it, so a running
 * cluster's index is never deleted under it, whichever process runs it.
 *
 * <p>The lock is on the file {@code .lock} in the build directory. Java's file locks belong to the
 * whole JVM: a second channel of the same JVM cannot lock a file the JVM has locked (it gets
 * {@link OverlappingFileLockException}), so several leaves of one JVM (an embedded cluster) share
 * one lock per build, counted here. That is why this registry is static: it mirrors a resource
 * that is JVM-wide itself.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every method holds the registry's monitor
 * while it touches a lock. Another process's exclusive lock makes {@link #acquireShared} wait until
 * that process has deleted the build (the caller then finds it gone and locks the current one).
 */
final class BuildLocks {
    private static final Map<Path, Held> HELD = new HashMap<>();

    private BuildLocks() {
    }

    private static final class Held {
        final FileChannel channel;
        final FileLock lock;
        int users;

        Held(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }
    }

    /** A shared lock on a build; closing it releases this user's share. Idempotent. */
    static final class Handle implements AutoCloseable {
        private final Path dir;
        private boolean closed;

        private Handle(Path dir) {
            this.dir = dir;
        }

        @Override
        public void close() throws IOException {
            synchronized (BuildLocks.class) {
                if (closed) {
                    return;
                }
                closed = true;
                Held held = HELD.get(dir);
                if (held != null && --held.users == 0) {
                    HELD.remove(dir);
                    try {
                        held.lock.release();
                    } finally {
                        held.channel.close();
                    }
                }
            }
        }
    }

    static Handle acquireShared(Path buildDir) throws IOException {
        Path dir = buildDir.toAbsolutePath().normalize();
        synchronized (BuildLocks.class) {
            Held held = HELD.get(dir);
            if (held == null) {
                Files.createDirectories(dir);
                FileChannel channel = FileChannel.open(dir.resolve(PartitionStore.LOCK_FILE), StandardOpenOption.CREATE,
                        StandardOpenOption.READ, StandardOpenOption.WRITE);
                try {
                    held = new Held(channel, channel.lock(0, Long.MAX_VALUE, true));
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                HELD.put(dir, held);
            }
            held.users++;
            return new Handle(dir);
        }
    }

    /** Deletes a build directory if no process holds it; false (nothing deleted) when one does. */
    static boolean tryDelete(Path buildDir) throws IOException {
        return whileUnused(buildDir, () -> {
            try (Stream<Path> entries = Files.list(buildDir)) {
                for (Path entry : (Iterable<Path>) entries::iterator) {
                    if (!entry.getFileName().toString().equals(PartitionStore.LOCK_FILE)) {
                        PartitionStore.deleteTree(entry);
                    }
                }
            }
        }) && deleteLockAndDirectory(buildDir);
    }

    private static boolean deleteLockAndDirectory(Path buildDir) throws IOException {
        Files.deleteIfExists(buildDir.resolve(PartitionStore.LOCK_FILE));
        Files.deleteIfExists(buildDir);
        return true;
    }

    /** A step that may throw {@link IOException}. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    /**
     * Runs {@code action} under an exclusive lock on {@code dir}'s lock file, if no process (this
     * one included) holds a lock on it.
     *
     * @return false, without running the action, when the directory is in use
     */
    static boolean whileUnused(Path dir, IoAction action) throws IOException {
        Path normalized = dir.toAbsolutePath().normalize();
        synchronized (BuildLocks.class) {
            if (HELD.containsKey(normalized)) {
                return false;
            }
            try (FileChannel channel = FileChannel.open(normalized.resolve(PartitionStore.LOCK_FILE),
                    StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    return false;
                }
                if (lock == null) {
                    return false;
                }
                try {
                    action.run();
                } finally {
                    lock.release();
                }
                return true;
            }
        }
    }
}
