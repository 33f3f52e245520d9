package io.hedgerow.leaf.index;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The on-disk layout of one index: {@code <dir>/index.json}, the manifest, names the current
 * <em>build</em>, a directory holding one Lucene index per micro-partition
 * ({@code <dir>/build-0003/partition-0007/}). Leaves keep their own writable copies of the
 * partitions they serve under {@code <dir>/live/} (see {@code io.hedgerow.leaf.write}).
 *
 * <p><b>Builds side by side.</b> A rebuild writes a new build next to the current one and then
 * switches to it atomically ({@link #publish}: the manifest is written to a temporary file, synced,
 * renamed over {@code index.json}, and the directory synced), so a reader sees the old index or the
 * new one, never a mix, and a crash at any point leaves the old index whole. A running leaf holds a
 * shared lock on the build it serves ({@link BuildLocks}); {@link #removeUnusedBuilds} deletes only
 * builds nobody holds, so a running cluster's index is never deleted under it. An index written
 * before builds existed keeps its partitions in the index directory itself (a manifest without
 * {@code build}), and is read as it is.
 */
public record PartitionStore(Path dir) {
    public static final String MANIFEST_FILE = "index.json";
    /** Where leaves keep their writable copies of partitions. */
    public static final String LIVE_DIR = "live";
    /** The lock file in a build directory (or, for an old index, in the index directory). */
    static final String LOCK_FILE = ".lock";

    private static final Pattern PARTITION_DIR = Pattern.compile("partition-\\d{4}");
    private static final Pattern BUILD_DIR = Pattern.compile("build-(\\d{4,9})");

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
    /** One line, keys in the records' order: the same manifest always gives the same text. */
    private static final ObjectMapper COMPACT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    public PartitionStore {
        dir = dir.toAbsolutePath().normalize();
    }

    static boolean isBuildName(String name) {
        return BUILD_DIR.matcher(name).matches();
    }

    static String partitionName(int partition) {
        if (partition < 0 || partition > 9999) {
            throw new IllegalArgumentException("partition: " + partition + " (expected: 0..9999)");
        }
        return String.format("partition-%04d", partition);
    }

    /**
     * The partition's directory in the current build: the one the manifest names, or the index
     * directory itself for an index from before builds (or while there is no manifest).
     */
    public Path partitionDir(int partition) {
        String name = partitionName(partition);
        String build = null;
        if (isComplete()) {
            try {
                build = readManifest().build();
            } catch (IOException e) {
                // An unreadable manifest: as if there were none; opening the partition will say what is wrong.
            }
        }
        return build == null ? dir.resolve(name) : dir.resolve(build).resolve(name);
    }

    /** The partition's directory in the build {@code manifest} names. */
    public Path partitionDir(IndexManifest manifest, int partition) {
        return buildDir(manifest).resolve(partitionName(partition));
    }

    /** The directory of the build {@code manifest} names; the index directory for an index from before builds. */
    public Path buildDir(IndexManifest manifest) {
        return manifest.build() == null ? dir : dir.resolve(manifest.build());
    }

    Path buildDir(String build) {
        return dir.resolve(build);
    }

    /** Where leaves keep their writable copies of this index's partitions. */
    public Path liveDir() {
        return dir.resolve(LIVE_DIR);
    }

    public Path manifestFile() {
        return dir.resolve(MANIFEST_FILE);
    }

    /** True when indexing into this directory finished at least once. */
    public boolean isComplete() {
        return Files.isRegularFile(manifestFile());
    }

    public IndexManifest readManifest() throws IOException {
        try {
            return JSON.readValue(manifestFile().toFile(), IndexManifest.class);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(manifestFile().toString(), null,
                    "no index here (missing " + MANIFEST_FILE + "); build one with ./hedgerow index");
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("unreadable " + manifestFile() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A manifest in its canonical form: compact JSON, keys in declaration order. Equal manifests give
     * equal text, so its hash identifies an index ({@link IndexIdentities}).
     */
    public static String canonicalJson(IndexManifest manifest) {
        try {
            return COMPACT.writeValueAsString(manifest);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write manifest " + manifest.name() + " as JSON", e);
        }
    }

    /**
     * Reads a manifest from JSON text, as {@link #canonicalJson} writes it.
     *
     * @throws IOException naming the problem when the text is not a valid manifest
     */
    public static IndexManifest parseManifest(String json) throws IOException {
        try {
            return COMPACT.readValue(json, IndexManifest.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("not a valid index manifest: " + e.getMessage(), e);
        }
    }

    /** Writes the manifest atomically, so a reader never sees half of one; see {@link #publish}. */
    public void writeManifest(IndexManifest manifest) throws IOException {
        publish(manifest);
    }

    /**
     * Makes {@code manifest} the index's manifest, atomically and durably: written to a temporary
     * file, synced, renamed over {@code index.json}, and the directory synced, so that after a crash
     * the index is either the old one or the new one, whole.
     */
    public void publish(IndexManifest manifest) throws IOException {
        Files.createDirectories(dir);
        Path tmp = dir.resolve(MANIFEST_FILE + ".tmp");
        JSON.writeValue(tmp.toFile(), manifest);
        Durable.syncFile(tmp);
        try {
            Files.move(tmp, manifestFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, manifestFile(), StandardCopyOption.REPLACE_EXISTING);
        }
        Durable.syncDirectory(dir);
    }

    /** The name for the next build: one past the highest build directory here. */
    String nextBuildName() throws IOException {
        int highest = 0;
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                for (Path entry : (Iterable<Path>) entries::iterator) {
                    Matcher build = BUILD_DIR.matcher(entry.getFileName().toString());
                    if (build.matches()) {
                        highest = Math.max(highest, Integer.parseInt(build.group(1)));
                    }
                }
            }
        }
        return String.format("build-%04d", highest + 1);
    }

    /**
     * Refuses a directory that holds anything an index does not (a mistyped {@code --out} must not
     * mix an index into someone's files, nor let a later cleanup touch them).
     */
    void requireOnlyIndexFiles() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!isIndexEntry(name)) {
                    throw new IOException("refusing to write an index into " + dir + ": it holds " + name
                            + ", which is not part of an index (expected only " + MANIFEST_FILE
                            + ", build-NNNN, partition-NNNN and " + LIVE_DIR + " directories)");
                }
            }
        }
    }

    private static boolean isIndexEntry(String name) {
        return PARTITION_DIR.matcher(name).matches() || BUILD_DIR.matcher(name).matches() || name.equals(MANIFEST_FILE)
                || name.equals(MANIFEST_FILE + ".tmp") || name.equals(LOCK_FILE) || name.equals(LIVE_DIR);
    }

    /**
     * Deletes every build (and the partitions of an index from before builds) that is neither the
     * current one nor held by a running leaf; unfinished builds go too.
     *
     * @return the builds kept because a running leaf holds them
     */
    public List<String> removeUnusedBuilds() throws IOException {
        List<String> kept = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return kept;
        }
        String current = isComplete() ? readManifest().build() : null;
        List<Path> legacyPartitions = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (BUILD_DIR.matcher(name).matches() && !name.equals(current)) {
                    if (BuildLocks.tryDelete(entry)) {
                        continue;
                    }
                    kept.add(name);
                } else if (PARTITION_DIR.matcher(name).matches() && current != null) {
                    legacyPartitions.add(entry);
                }
            }
        }
        if (!legacyPartitions.isEmpty()) {
            // An index from before builds: its leaves lock the index directory itself.
            if (BuildLocks.whileUnused(dir, () -> {
                for (Path partition : legacyPartitions) {
                    deleteTree(partition);
                }
            })) {
                Files.deleteIfExists(dir.resolve(LOCK_FILE));
            } else {
                kept.add("the partitions of the old layout");
            }
        }
        return kept;
    }

    /**
     * Deletes the index in this directory, if there is one, and leaves the directory empty: first
     * {@code index.json}, so that a deletion cut short leaves an incomplete index rather than one
     * that looks complete, then every build, partition and live directory. Deletes nothing and
     * throws when the directory holds anything that is not part of an index, so that a mistyped
     * path cannot cost anyone their files. For tools and tests: a rebuild never needs it.
     */
    public void delete() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> parts = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (!isIndexEntry(name)) {
                    throw new IOException("refusing to delete " + dir + ": it holds " + name
                            + ", which is not part of an index (expected only " + MANIFEST_FILE
                            + ", build-NNNN, partition-NNNN and " + LIVE_DIR + " directories)");
                }
                if (Files.isDirectory(entry)) {
                    parts.add(entry);
                }
            }
        }
        Files.deleteIfExists(manifestFile());
        Files.deleteIfExists(dir.resolve(MANIFEST_FILE + ".tmp"));
        Files.deleteIfExists(dir.resolve(LOCK_FILE));
        for (Path part : parts) {
            deleteTree(part);
        }
    }

    /** Deletes a directory and everything in it; nothing when it does not exist. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }

    /**
     * The current build, locked for as long as the caller serves it: {@link #removeUnusedBuilds} of
     * any process leaves it alone until the lock is closed. The manifest is read again after the lock
     * is taken, so a rebuild that switched builds meanwhile is seen, and its build locked instead.
     */
    public ServedBuild lockCurrentBuild() throws IOException {
        for (int attempt = 0; ; attempt++) {
            IndexManifest manifest = readManifest();
            Path build = buildDir(manifest);
            BuildLocks.Handle lock = BuildLocks.acquireShared(build);
            IndexManifest again;
            try {
                again = readManifest();
            } catch (IOException | RuntimeException e) {
                lock.close();
                throw e;
            }
            if (again.equals(manifest) && Files.isDirectory(build)) {
                return new ServedBuild(manifest, lock);
            }
            lock.close();
            if (attempt == 10) {
                throw new IOException("the index in " + dir + " keeps changing builds (tried " + attempt + " times)");
            }
        }
    }

    /**
     * A build a process serves, and its lock.
     *
     * @param manifest the manifest naming the build
     */
    public record ServedBuild(IndexManifest manifest, AutoCloseable lock) implements AutoCloseable {
        @Override
        public void close() {
            try {
                lock.close();
            } catch (Exception e) {
                System.getLogger(PartitionStore.class.getName())
                        .log(System.Logger.Level.WARNING, "releasing the lock of build " + manifest.build(), e);
            }
        }
    }

    /** Syncing files and directories to the disk. */
    static final class Durable {
        private Durable() {
        }

        static void syncFile(Path file) throws IOException {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
        }

        /** Makes a rename or a new entry in {@code directory} durable; a no-op where the platform cannot. */
        static void syncDirectory(Path directory) throws IOException {
            try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    }
}
