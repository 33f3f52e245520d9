package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hedgerow local stop} ({@link RunDirectory#stopAll}) stops an embedded ZooKeeper only once every
 * other process of the cluster has exited, and the leaf ports a cluster with ZooKeeper keeps survive
 * the clean-up. Real processes: shells standing in for a leaf that takes a moment to drain, and for
 * ZooKeeper, which writes down whether the leaf was still running when it was told to stop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunDirectoryStopTest {
    @Test
    void stopsZooKeeperLastAndKeepsTheLeafPorts(@TempDir Path dir) throws Exception {
        RunDirectory run = new RunDirectory(dir);
        Process leaf = new ProcessBuilder("bash", "-c", "trap 'sleep 1; exit 0' TERM; while :; do sleep 0.1; done").start();
        Path seen = dir.resolve("seen-by-zk");
        Process zk = new ProcessBuilder("bash", "-c", "trap 'if kill -0 " + leaf.pid() + " 2>/dev/null; then echo leaf-alive; else"
                + " echo leaf-gone; fi >" + seen + "; exit 0' TERM; while :; do sleep 0.1; done").start();
        run.writePid("leaf-0", leaf.pid());
        run.writePid("zk", zk.pid());
        run.keepLeafPorts(Map.of(0, 40123));

        assertThat(run.stopAll(10_000)).isEqualTo(2);

        assertThat(leaf.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(zk.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readAllLines(seen)).isEqualTo(List.of("leaf-gone"));
        assertThat(run.pidFile("zk")).doesNotExist();
        assertThat(run.keptLeafPorts()).isEqualTo(Map.of(0, 40123));
    }
}
