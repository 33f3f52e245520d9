package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A disk that forgets, for {@link WriteLog}'s files: bytes reach the real file at once (the page
 * cache), but only what a {@code force} synced, and only names whose directory was synced, survive
 * {@link #crash}, which puts every file it knows back to that state. SIGKILL of a process keeps the
 * page cache, so a test that kills a process cannot catch a missing fsync; this one can. It can
 * also fail the next {@code force} or write, as a disk does.
 *
 * <p>Files that existed before this disk first opened them count as synced as they are. Not
 * thread-safe: one test thread.
 */
final class CrashableDisk implements WalFiles {
    /** A file, whatever its name: what of it was synced. */
    private static final class Inode {
        byte[] synced = new byte[0];
    }

    private final Map<Path, Inode> names = new HashMap<>();
    private final Map<Path, Inode> durableNames = new HashMap<>();
    private final List<SyncedFileChannel> open = new ArrayList<>();
    private boolean failNextForce;
    private boolean failNextWrite;
    private int forces;

    /** The next {@code force} throws (its bytes stay in the "page cache", unsynced). */
    void failNextForce() {
        failNextForce = true;
    }

    /** The next write throws, having written nothing. */
    void failNextWrite() {
        failNextWrite = true;
    }

    /** How many fsyncs were made, of files ({@code force}) and of directories. */
    int forces() {
        return forces;
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        Path path = file.toAbsolutePath().normalize();
        boolean existed = Files.exists(path);
        byte[] before = existed ? Files.readAllBytes(path) : null;
        // Readable as well, so force() can read what it syncs.
        Set<OpenOption> readable = new HashSet<>(List.of(options));
        readable.add(StandardOpenOption.READ);
        FileChannel real = FileChannel.open(path, readable);
        Inode inode = names.get(path);
        if (inode == null || !existed) {
            inode = new Inode();
            if (existed) {
                inode.synced = before;
                durableNames.put(path, inode);
            }
            names.put(path, inode);
        }
        SyncedFileChannel channel = new SyncedFileChannel(real, inode);
        open.add(channel);
        return channel;
    }

    @Override
    public void move(Path from, Path to) throws IOException {
        Path source = from.toAbsolutePath().normalize();
        Path target = to.toAbsolutePath().normalize();
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Inode inode = names.remove(source);
        if (inode != null) {
            names.put(target, inode);
        } else {
            names.remove(target);
        }
    }

    @Override
    public void syncDirectory(Path dir) {
        forces++;
        Path directory = dir.toAbsolutePath().normalize();
        durableNames.keySet().removeIf(path -> path.getParent().equals(directory) && !names.containsKey(path));
        names.forEach((path, inode) -> {
            if (path.getParent().equals(directory)) {
                durableNames.put(path, inode);
            }
        });
    }

    /**
     * A power cut: every open channel is closed, every file this disk knows is put back to what was
     * synced of it, under the names whose directory was synced; the others are gone.
     */
    void crash() throws IOException {
        for (SyncedFileChannel channel : open) {
            channel.real.close();
        }
        open.clear();
        Set<Path> known = new HashSet<>(names.keySet());
        known.addAll(durableNames.keySet());
        for (Path path : known) {
            Files.deleteIfExists(path);
        }
        for (Map.Entry<Path, Inode> entry : durableNames.entrySet()) {
            Files.write(entry.getKey(), entry.getValue().synced);
        }
        names.clear();
        names.putAll(durableNames);
    }

    /** A channel on a real file whose {@code force} records what is synced; see {@link CrashableDisk}. */
    final class SyncedFileChannel extends FileChannel {
        private final FileChannel real;
        private final Inode inode;

        SyncedFileChannel(FileChannel real, Inode inode) {
            this.real = real;
            this.inode = inode;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (failNextForce) {
                failNextForce = false;
                throw new IOException("simulated fsync failure (EIO)");
            }
            forces++;
            ByteBuffer all = ByteBuffer.allocate((int) real.size());
            while (all.hasRemaining() && real.read(all, all.position()) >= 0) {
                // read it all
            }
            inode.synced = all.array();
        }

        private void beforeWrite() throws IOException {
            if (failNextWrite) {
                failNextWrite = false;
                throw new IOException("simulated write failure (ENOSPC)");
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return real.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return real.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            beforeWrite();
            return real.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            beforeWrite();
            return real.write(srcs, offset, length);
        }

        @Override
        public long position() throws IOException {
            return real.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            real.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return real.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            real.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return real.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            beforeWrite();
            return real.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return real.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            beforeWrite();
            return real.write(src, position);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException("map (a write-ahead log does not map its files)");
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return real.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return real.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            real.close();
        }
    }
}
