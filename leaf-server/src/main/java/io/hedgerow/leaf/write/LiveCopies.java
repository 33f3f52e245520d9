package io.hedgerow.leaf.write;

import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * Makes a leaf's writable copy of a built partition, and a snapshot of a copy
 * ({@link LivePartition#snapshot}; another leaf pulls it over the wire, {@link PeerRecovery}). Hard links where the file system allows
 * (Lucene writes each file once and never changes it, so a link is as good as a copy and costs no
 * space), copies elsewhere. The copy is made under a temporary name and renamed into place, so a
 * crash midway leaves no half copy that looks whole. Every directory made, and the one renamed into,
 * is synced, so a crash cannot lose a copy (or a log in it) whose files were synced.
 */
final class LiveCopies {
    private LiveCopies() {
    }

    /** Links (or copies) every file of the {@code source} directory to {@code target}, under {@code parent}. */
    static void linkOrCopy(Path source, Path parent, Path target) throws IOException {
        linkOrCopy(source, parent, target, WalFiles.SYSTEM);
    }

    /** As {@link #linkOrCopy(Path, Path, Path)}, syncing directories through {@code files}. */
    static void linkOrCopy(Path source, Path parent, Path target, WalFiles files) throws IOException {
        if (!Files.isDirectory(source)) {
            throw new IOException("no partition to copy at " + source + " (expected: the build's partition directory)");
        }
        List<String> names = new ArrayList<>();
        try (Stream<Path> listed = Files.list(source)) {
            for (Path file : (Iterable<Path>) listed::iterator) {
                String name = file.getFileName().toString();
                if (!name.equals("write.lock") && !name.startsWith(".") && Files.isRegularFile(file)) {
                    names.add(name);
                }
            }
        }
        linkOrCopy(source, names, parent, target, files);
    }

    /**
     * Links (or copies) the files {@code names} of {@code source} to {@code target}, under
     * {@code parent}: for a snapshot, exactly the files of one Lucene commit, since other files of
     * a live index (a merge's, being written or deleted) may come and go meanwhile.
     */
    static void linkOrCopy(Path source, Collection<String> names, Path parent, Path target) throws IOException {
        linkOrCopy(source, names, parent, target, WalFiles.SYSTEM);
    }

    private static void linkOrCopy(Path source, Collection<String> names, Path parent, Path target, WalFiles files)
            throws IOException {
        createDirectories(parent, files);
        Path tmp = parent.resolve(target.getFileName() + ".tmp");
        PartitionStore.deleteTree(tmp);
        Files.createDirectories(tmp);
        for (String name : names) {
            Path file = source.resolve(name);
            try {
                Files.createLink(tmp.resolve(name), file);
            } catch (IOException | UnsupportedOperationException e) {
                Files.copy(file, tmp.resolve(name));
                try (FileChannel channel = FileChannel.open(tmp.resolve(name), StandardOpenOption.WRITE)) {
                    channel.force(true);
                }
            }
        }
        // The links' directory entries, before the directory holding them is renamed into place.
        files.syncDirectory(tmp);
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target);
        }
        files.syncDirectory(parent);
    }

    /**
     * Makes {@code dir} and any missing parents of it, syncing the directory that holds each one
     * made, so none of them (nor what is later synced in them) vanishes in a crash.
     */
    static void createDirectories(Path dir) throws IOException {
        createDirectories(dir, WalFiles.SYSTEM);
    }

    /** As {@link #createDirectories(Path)}, syncing through {@code files}. */
    static void createDirectories(Path dir, WalFiles files) throws IOException {
        Path absolute = dir.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent, files);
        }
        try {
            Files.createDirectory(absolute);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw e;
            }
            return; // made meanwhile by another leaf
        }
        if (parent != null) {
            files.syncDirectory(parent);
        }
    }

}
