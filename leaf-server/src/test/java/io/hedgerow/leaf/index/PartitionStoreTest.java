package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
