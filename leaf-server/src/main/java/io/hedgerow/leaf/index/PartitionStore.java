package io.hedgerow.leaf.index;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The on-disk layout of one index: {@code <dir>/index.json} and one Lucene index directory per
 * micro-partition, {@code <dir>/partition-0007/}.
 */
public record PartitionStore(Path dir) {
    public static final String MANIFEST_FILE = "index.json";

    private static final Pattern PARTITION_DIR = Pattern.compile("partition-\\d{4}");

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

    public Path partitionDir(int partition) {
        if (partition < 0 || partition > 9999) {
            throw new IllegalArgumentException("partition: " + partition + " (expected: 0..9999)");
        }
        return dir.resolve(String.format("partition-%04d", partition));
    }

    public Path manifestFile() {
        return dir.resolve(MANIFEST_FILE);
    }

    /** True when indexing into this directory finished. */
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

    /** Writes the manifest atomically, so a reader never sees half of one. */
    public void writeManifest(IndexManifest manifest) throws IOException {
        Files.createDirectories(dir);
        Path tmp = dir.resolve(MANIFEST_FILE + ".tmp");
        JSON.writeValue(tmp.toFile(), manifest);
        try {
            Files.move(tmp, manifestFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, manifestFile(), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Deletes the index in this directory, if there is one, and leaves the directory empty: first
     * {@code index.json}, so that a deletion cut short leaves an incomplete index rather than one
     * that looks complete, then every partition directory. Deletes nothing and throws when the
     * directory holds anything that is not part of an index, so that a mistyped path cannot cost
     * anyone their files.
     */
    public void delete() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> partitions = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String name = entry.getFileName().toString();
                if (PARTITION_DIR.matcher(name).matches()) {
                    partitions.add(entry);
                } else if (!name.equals(MANIFEST_FILE) && !name.equals(MANIFEST_FILE + ".tmp")) {
                    throw new IOException("refusing to delete " + dir + ": it holds " + name
                            + ", which is not part of an index (expected only " + MANIFEST_FILE
                            + " and partition-NNNN directories)");
                }
            }
        }
        Files.deleteIfExists(manifestFile());
        Files.deleteIfExists(dir.resolve(MANIFEST_FILE + ".tmp"));
        for (Path partition : partitions) {
            try (Stream<Path> files = Files.walk(partition)) {
                for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(file);
                }
            }
        }
    }
}
