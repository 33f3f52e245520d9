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

/**
 * The on-disk layout of one index: {@code <dir>/index.json} and one Lucene index directory per
 * micro-partition, {@code <dir>/partition-0007/}.
 */
public record PartitionStore(Path dir) {
    public static final String MANIFEST_FILE = "index.json";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
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
}
