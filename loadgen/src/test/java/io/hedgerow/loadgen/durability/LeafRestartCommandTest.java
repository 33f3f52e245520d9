package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaf nemesis's restart command, for leaves no root supervises ({@code durability.sh --netns}):
 * the leaf's number goes where {@code {leaf}} is, a status other than 0 fails the heal, and a command
 * without {@code {leaf}} is refused up front.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeafRestartCommandTest {
    @TempDir
    Path dir;

    @Test
    void runsTheCommandWithTheLeafsNumber() throws IOException {
        Path started = dir.resolve("started");

        String done = LeafNemesis.runRestartCommand("echo leaf-2 >" + started, 2, dir.resolve("restarts.log"));

        assertThat(done).isEqualTo("restart leaf 2 (restart command)");
        assertThat(Files.readString(started)).isEqualTo("leaf-2\n");
    }

    @Test
    void aCommandThatFailsFailsTheHealAndNamesItsLog() throws IOException {
        Path log = dir.resolve("restarts.log");

        assertThatThrownBy(() -> LeafNemesis.runRestartCommand("echo 'leaf 1 exited while starting' >&2; exit 1", 1, log))
                .isInstanceOf(IOException.class).hasMessageContaining("exited with status 1").hasMessageContaining(log.toString());
        assertThat(Files.readString(log)).contains("leaf 1 exited while starting");
    }

    @Test
    void refusesACommandWithoutTheLeafsPlace() {
        assertThatThrownBy(() -> LeafNemesis.withRestartCommand(URI.create("http://127.0.0.1:1"), new RunDirectory(dir),
                "run/start-leaf.sh")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{leaf}");
        assertThat(LeafNemesis.withRestartCommand(URI.create("http://127.0.0.1:1"), new RunDirectory(dir),
                "run/start-leaf.sh {leaf}").name()).isEqualTo("leaf");
    }
}
