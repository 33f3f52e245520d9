package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionStoreTest {
    @TempDir
    Path tmp;

    @Test
    void deletesTheManifestAndEveryPartition() throws IOException {
        PartitionStore store = new PartitionStore(tmp.resolve("index"));
        Files.createDirectories(store.partitionDir(3).resolve("nested"));
        Files.writeString(store.partitionDir(3).resolve("nested/_0.cfs"), "x");
        Files.createDirectories(store.partitionDir(12));
        Files.writeString(store.manifestFile(), "{}");

        store.delete();

        assertThat(store.dir()).isEmptyDirectory();
        assertThat(store.isComplete()).isFalse();
    }

    @Test
    void refusesToDeleteADirectoryThatHoldsOtherFiles() throws IOException {
        PartitionStore store = new PartitionStore(tmp);
        Files.createDirectories(store.partitionDir(0));
        Files.writeString(store.manifestFile(), "{}");
        Files.writeString(tmp.resolve("thesis.tex"), "years of work");

        assertThatThrownBy(store::delete)
                .isInstanceOf(IOException.class)
                .hasMessageContaining("refusing to delete " + tmp)
                .hasMessageContaining("thesis.tex");
        assertThat(tmp.resolve("thesis.tex")).exists();
        assertThat(store.manifestFile()).as("nothing is deleted").exists();
        assertThat(store.partitionDir(0)).exists();
    }

    @Test
    void deletingAMissingDirectoryDoesNothing() throws IOException {
        PartitionStore store = new PartitionStore(tmp.resolve("never-built"));

        store.delete();

        assertThat(store.dir()).doesNotExist();
    }

    @Test
    void manifestRecordsTheScaleAndReadsOldManifestsWithoutOneAsScaleOne() throws IOException {
        PartitionStore store = new PartitionStore(tmp.resolve("europarl-x60"));
        IndexManifest scaled = new IndexManifest(IndexManifest.FORMAT, "europarl-x60", 1, IndexConfig.europarl(),
                List.of("title", "date", "body"), 60, 1_055_820, List.of(1_055_820L), "2026-01-01T00:00:00Z");
        store.writeManifest(scaled);

        assertThat(Files.readString(store.manifestFile())).contains("\"scale\" : 60");
        assertThat(store.readManifest()).isEqualTo(scaled);

        String written = Files.readString(store.manifestFile());
        Files.writeString(store.manifestFile(), written.replace("\"scale\" : 60,", ""));
        assertThat(Files.readString(store.manifestFile())).doesNotContain("scale");
        assertThat(store.readManifest().scale()).isEqualTo(1);

        Files.writeString(store.manifestFile(), written.replace("\"scale\" : 60,", "\"scale\" : 0,"));
        assertThatThrownBy(store::readManifest).isInstanceOf(IOException.class).hasMessageContaining("scale: 0 (expected: >= 1)");
    }
}
