package io.hedgerow.leaf.write;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A leaf's directory of live copies under a build's live directory, held for as long as the leaf
 * runs. A leaf with a name ({@link LiveSettings#nodeId}) uses {@code node-<name>}. A leaf without
 * one used to be named after its port, so started again on another port it found none of its
 * copies (every replica answered seq 0, and writes started again at 1). Now it claims a stable
 * directory: its {@code port-<port>} directory if one exists from before, else the first
 * {@code node-auto-<n>} that no running leaf holds (an exclusive lock on a file in it, which the
 * operating system releases when the leaf dies). A leaf alone on its index directory (one leaf per
 * machine) therefore always finds its copies again; leaves sharing one should be named, or
 * restarted ones may swap directories (each then catches up the partitions it serves).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe enough for its one use: claimed once at
 * start, released at close.
 */
final class LeafDirClaim implements Closeable {
    static final String LOCK_FILE = ".leaf.lock";
    static final String AUTO_PREFIX = "node-auto-";
    /** More leaves than this without names on one index directory is a mistake, not a cluster. */
    private static final int MAX_AUTO = 1024;

    private final Path dir;
    private final FileChannel channel;

    private LeafDirClaim(Path dir, FileChannel channel) {
        this.dir = dir;
        this.channel = channel;
    }

    /** Claims this leaf's directory under {@code buildLiveDir}, making it (durably) when new. */
    static LeafDirClaim claim(Path buildLiveDir, LiveSettings settings, int port) throws IOException {
        if (settings.nodeId() != null) {
            // Named: Lucene's write lock already refuses a second leaf of the same name its writes.
            Path dir = buildLiveDir.resolve("node-" + settings.nodeId());
            LiveCopies.createDirectories(dir);
            return new LeafDirClaim(dir, null);
        }
        Path legacy = buildLiveDir.resolve("port-" + port);
        if (Files.isDirectory(legacy)) {
            LeafDirClaim claim = tryClaim(legacy);
            if (claim != null) {
                return claim;
            }
        }
        for (int n = 0; n < MAX_AUTO; n++) {
            Path dir = buildLiveDir.resolve(AUTO_PREFIX + n);
            LiveCopies.createDirectories(dir);
            LeafDirClaim claim = tryClaim(dir);
            if (claim != null) {
                return claim;
            }
        }
        throw new IOException("no free directory for this leaf's live copies under " + buildLiveDir + " ("
                + MAX_AUTO + " unnamed leaves hold one each; expected: leaves that share an index directory named"
                + " with --node-id)");
    }

    private static LeafDirClaim tryClaim(Path dir) throws IOException {
        FileChannel channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return new LeafDirClaim(dir, channel);
            }
        } catch (OverlappingFileLockException e) {
            // Held by another leaf in this JVM (tests run several).
        }
        channel.close();
        return null;
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }
}
