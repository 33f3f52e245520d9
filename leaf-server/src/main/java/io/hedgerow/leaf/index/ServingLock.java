package io.hedgerow.leaf.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Says that a cluster serves an index: {@code local} and {@code demo} hold an exclusive lock on
 * {@code <index>/.cluster.lock} for as long as their cluster runs, with a line naming the holder in
 * the file, and check it before they touch the index, whatever run directory either uses. A second
 * cluster must not rebuild the index under the first (with other partition settings) nor start
 * leaves whose restarts would then pick up another build than the root serves.
 *
 * <p>The operating system releases the lock when the holding process dies, so a crashed cluster
 * never leaves the index locked. Build locks ({@link BuildLocks}) protect the files a leaf reads;
 * this lock protects the cluster as a whole.
 */
public final class ServingLock implements AutoCloseable {
    public static final String FILE = ".cluster.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private ServingLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of the index in {@code indexDir} for a cluster described by {@code holder}
     * (e.g. "pid 1234, run dir data/run, http port 8080").
     *
     * @throws IOException naming the cluster that holds it, when one does
     */
    public static ServingLock acquire(Path indexDir, String holder) throws IOException {
        Files.createDirectories(indexDir);
        FileChannel channel = FileChannel.open(indexDir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            String other = read(channel);
            channel.close();
            throw new IOException(heldMessage(indexDir, other));
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(true);
        return new ServingLock(channel, lock);
    }

    /** Who serves the index in {@code indexDir} right now, if anyone; nothing is locked afterwards. */
    public static Optional<String> holder(Path indexDir) throws IOException {
        Path file = indexDir.resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock != null) {
                lock.release();
                return Optional.empty();
            }
            return Optional.of(read(channel));
        }
    }

    /**
     * Throws when a running cluster serves the index in {@code indexDir}, naming it: nothing may
     * rebuild or reopen the index under it.
     */
    public static void requireNotServed(Path indexDir) throws IOException {
        Optional<String> holder = holder(indexDir);
        if (holder.isPresent()) {
            throw new IOException(heldMessage(indexDir, holder.get()));
        }
    }

    private static String heldMessage(Path indexDir, String holder) {
        return "the index in " + indexDir + " is served by a running cluster (" + (holder.isBlank() ? "holder unknown" : holder)
                + "); stop it first (./hedgerow local stop, with its --run-dir) or serve another index";
    }

    private static String read(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        channel.read(buffer, 0);
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip();
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
