package io.hedgerow.leaf.write;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;

/**
 * The source side of file-based recovery at one leaf: snapshots of its copies, for other leaves'
 * copies to start from. Each is a hard-linked Lucene commit ({@link LivePartition#snapshot}) under
 * {@code <leaf dir>/snapshots/partition-NNNN/<leaf dir name>-seq-<seq>}; a newer one of a partition
 * drops the older ones no peer is copying ({@link SnapshotPins}); peers read them over a
 * peer-recovery connection ({@link SnapshotFiles}). The receiving side (pulling one and swapping it
 * in as a copy) is {@link LiveWrites}'s RESTORE.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. A name is checked before it leads to a path, so
 * a request never reaches outside the snapshots directory.
 */
final class LeafSnapshots {
    private static final System.Logger LOG = System.getLogger(LeafSnapshots.class.getName());
    /** In a leaf's directory: snapshots of its copies, for other leaves' copies to start from. */
    static final String DIR = "snapshots";
    private static final Pattern NAME = Pattern.compile("partition-\\d{4}/[A-Za-z0-9_.-]+-seq-\\d+");

    /** The leaf's directory, once it has one; else the reason it takes no writes. */
    interface LeafDir {
        Path get() throws IOException;
    }

    private final LeafDir leafDir;
    private final SnapshotPins pins = new SnapshotPins();
    private final SnapshotFiles files;

    /** @param reads where the files are read for peers (never an event loop) */
    LeafSnapshots(LeafDir leafDir, Executor reads) {
        this.leafDir = leafDir;
        this.files = new SnapshotFiles(this::path, pins, reads);
    }

    /** A session serving this leaf's snapshots to one peer-recovery connection; closed with it. */
    SnapshotFiles.Session session() {
        return files.open();
    }

    /**
     * Commits the copy and makes its snapshot (kept as it is if one of that seq exists), then drops
     * this leaf's older snapshots of the partition (their copies were made), except those a peer is
     * copying.
     *
     * @return the seq the snapshot holds every write up to
     */
    long snapshot(LivePartition live, int partition) throws IOException {
        Path leaf = leafDir.get();
        Path snapshots = leaf.resolve(DIR);
        long seq = live.snapshot(at -> snapshots.resolve(name(leaf, partition, at)));
        Path target = snapshots.resolve(name(leaf, partition, seq));
        pins.dropOlder(target);
        LOG.log(System.Logger.Level.INFO, "partition {0}: snapshot at seq {1} for a copy to start from ({2})", partition,
                seq, target);
        return seq;
    }

    /** {@code partition-NNNN/<this leaf's directory>-seq-<seq>}: one snapshot per partition, leaf and seq. */
    String name(int partition, long seq) throws IOException {
        return name(leafDir.get(), partition, seq);
    }

    private static String name(Path leaf, int partition, long seq) {
        return String.format("partition-%04d/%s-seq-%d", partition, leaf.getFileName(), seq);
    }

    /** The directory of this leaf's snapshot {@code name} of {@code partition}, the name checked. */
    Path path(int partition, String name) throws IOException {
        checkName(partition, name);
        return dir().resolve(name);
    }

    /** Refuses a name that is not one of {@code partition}'s snapshots as a SNAPSHOT answer names them. */
    static void checkName(int partition, String name) throws IOException {
        if (!NAME.matcher(name).matches() || !name.startsWith(String.format("partition-%04d/", partition))) {
            throw new IOException("snapshot '" + name + "' (expected: partition-" + String.format("%04d", partition)
                    + "/<leaf>-seq-<n>, as a SNAPSHOT answer names it)");
        }
    }

    private Path dir() throws IOException {
        return leafDir.get().resolve(DIR);
    }
}
