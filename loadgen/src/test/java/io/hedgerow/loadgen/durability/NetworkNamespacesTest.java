package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding a process's named network namespace: by the inode {@code /proc/<pid>/ns/net} names, among
 * the files of a folder standing in for {@code /var/run/netns}; and no prefix for a process in this
 * JVM's own namespace (what every test and every run without {@code --netns} sees).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NetworkNamespacesTest {
    @TempDir
    Path named;

    @Test
    void namesTheNamespaceWhoseInodeTheLinkGives() throws IOException {
        Files.createFile(named.resolve("hr-leaf1"));
        Path root1 = Files.createFile(named.resolve("hr-root1"));
        long inode = (Long) Files.getAttribute(root1, "unix:ino");

        assertThat(NetworkNamespaces.nameOf("net:[" + inode + "]", named)).isEqualTo("hr-root1");
    }

    @Test
    void noNameWhenNoFileHasTheInodeOrThereIsNoFolder() throws IOException {
        Files.createFile(named.resolve("hr-leaf1"));

        assertThat(NetworkNamespaces.nameOf("net:[1]", named)).isNull();
        assertThat(NetworkNamespaces.nameOf("net:[1]", named.resolve("missing"))).isNull();
    }

    @Test
    void refusesALinkThatIsNotANetworkNamespace() {
        assertThatThrownBy(() -> NetworkNamespaces.nameOf("mnt:[4026531841]", named)).isInstanceOf(IOException.class)
                .hasMessageContaining("expected: net:[<inode>]");
    }

    @Test
    void aProcessInThisNamespaceNeedsNoPrefix() throws IOException {
        assertThat(NetworkNamespaces.enterPrefix(ProcessHandle.current().pid())).isEmpty();
    }
}
