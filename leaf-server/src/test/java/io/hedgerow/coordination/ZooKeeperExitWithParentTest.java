package io.hedgerow.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hedgerow zk --exit-with-parent} (as {@code local --zk embedded} starts it) exits even when its
 * parent dies while it is still starting: a {@code local} killed in that window must leave no
 * ZooKeeper behind, holding its port and data. A real JVM, started by a shell that exits at once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperExitWithParentTest {
    @Test
    void exitsWhenItsParentDiedBeforeItFinishedStarting(@TempDir Path dir) throws Exception {
        List<String> java = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:+UseSerialGC", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                EmbeddedZooKeeper.class.getName(), "--port", "0", "--data-dir", dir.resolve("zk").toString(),
                "--port-file", dir.resolve("zk.port").toString(), "--exit-with-parent"));
        StringBuilder command = new StringBuilder();
        for (String word : java) {
            command.append('\'').append(word.replace("'", "'\\''")).append("' ");
        }
        // The shell starts the server in the background, prints its pid and exits: the parent is gone
        // long before the JVM has started.
        Process shell = new ProcessBuilder("bash", "-c", command + ">" + dir.resolve("zk.log") + " 2>&1 & echo $!")
                .redirectErrorStream(true).start();
        long pid = Long.parseLong(new String(shell.getInputStream().readAllBytes()).trim());
        assertThat(shell.waitFor()).isZero();
        ProcessHandle server = ProcessHandle.of(pid).orElseThrow();
        try {
            server.onExit().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            List<String> log = Files.readAllLines(dir.resolve("zk.log"));
            throw new AssertionError("the server (pid " + pid + ") outlived its parent by 60 s; its log ends: "
                    + log.subList(Math.max(0, log.size() - 5), log.size()), e);
        } finally {
            server.destroyForcibly();
        }
        assertThat(server.isAlive()).isFalse();
    }
}
