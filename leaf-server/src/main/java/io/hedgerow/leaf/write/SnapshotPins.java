package io.hedgerow.leaf.write;

import io.hedgerow.leaf.index.PartitionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Which of a leaf's snapshots another leaf is copying (peer recovery), so they stay on disk while
 * it does: a newer snapshot drops the older ones of its partition except those pinned, and the last
 * unpin of a snapshot that is no longer its partition's newest drops it then.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: pinning, unpinning and dropping hold this
 * object's monitor, so a snapshot is never deleted between being found and being pinned. The
 * directories of one partition's snapshots hold only that leaf's snapshots, named {@code ...-seq-<n>}.
 */
final class SnapshotPins {
    private final Map<Path, Integer> pins = new HashMap<>();

    /** Pins {@code snapshot}; false when it is not on disk (dropped already). */
    synchronized boolean pin(Path snapshot) {
        if (!Files.isDirectory(snapshot)) {
            return false;
        }
        pins.merge(snapshot, 1, Integer::sum);
        return true;
    }

    /** Unpins {@code snapshot} once; at its last pin, drops it unless it is its partition's newest. */
    synchronized void unpin(Path snapshot) throws IOException {
        Integer left = pins.computeIfPresent(snapshot, (path, count) -> count == 1 ? null : count - 1);
        if (left == null) {
            Path newest = newest(snapshot.getParent());
            if (newest != null && !newest.equals(snapshot)) {
                dropOlder(newest);
            }
        }
    }

    synchronized boolean pinned(Path snapshot) {
        return pins.containsKey(snapshot);
    }

    /** Deletes every snapshot beside {@code keep} (its partition's) that no copy is reading. */
    synchronized void dropOlder(Path keep) throws IOException {
        try (Stream<Path> listed = Files.list(keep.getParent())) {
            for (Path snapshot : (Iterable<Path>) listed::iterator) {
                if (!snapshot.equals(keep) && !pins.containsKey(snapshot)) {
                    PartitionStore.deleteTree(snapshot);
                }
            }
        }
    }

    private static Path newest(Path partitionSnapshots) throws IOException {
        if (!Files.isDirectory(partitionSnapshots)) {
            return null;
        }
        try (Stream<Path> listed = Files.list(partitionSnapshots)) {
            return listed.filter(Files::isDirectory)
                    .max((a, b) -> Long.compare(seqOf(a), seqOf(b)))
                    .orElse(null);
        }
    }

    private static long seqOf(Path snapshot) {
        String name = snapshot.getFileName().toString();
        int at = name.lastIndexOf("-seq-");
        try {
            return at < 0 ? -1 : Long.parseLong(name.substring(at + 5));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
