package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lock a running cluster holds on its index: a second holder is refused, naming the first. */
class ServingLockTest {
    @Test
    void aSecondClusterIsRefusedNamingTheFirstUntilItLetsGo(@TempDir Path index) throws IOException {
        assertThat(ServingLock.holder(index)).isEmpty();
        try (ServingLock first = ServingLock.acquire(index, "pid 1, run dir /a")) {
            assertThat(ServingLock.holder(index)).contains("pid 1, run dir /a");
            assertThatThrownBy(() -> ServingLock.acquire(index, "pid 2, run dir /b"))
                    .isInstanceOf(IOException.class)
                    .hasMessage("the index in " + index + " is served by a running cluster (pid 1, run dir /a); stop it"
                            + " first (./hedgerow local stop, with its --run-dir) or serve another index");
            assertThatThrownBy(() -> ServingLock.requireNotServed(index)).hasMessageContaining("(pid 1, run dir /a)");
        }
        ServingLock.requireNotServed(index);
        try (ServingLock again = ServingLock.acquire(index, "pid 3")) {
            assertThat(ServingLock.holder(index)).contains("pid 3");
        }
    }

    @Test
    void theLockFileIsPartOfAnIndexForTheStoresSafetyChecks(@TempDir Path index) throws IOException {
        PartitionStore store = new PartitionStore(index);
        ServingLock.acquire(index, "pid 4").close();

        store.requireOnlyIndexFiles();
        store.delete();
    }
}
