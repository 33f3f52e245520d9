package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.local.RunDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ZooKeeper nemesis on a stand-in process (a shell that writes {@code zk.port} and waits, with
 * no child of its own): a kill is followed by the same command line started again, with a new pid
 * file and port file; a pause stops the process and heal resumes it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperNemesisTest {
    @TempDir
    Path dir;
    private final List<Long> started = new ArrayList<>();

    @AfterEach
    void stopStandIns() throws Exception {
        for (long pid : started) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (long pid : pidsNow()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aKilledServerIsStartedAgainWithItsOwnCommandLine() throws Exception {
        RunDirectory run = standIn();
        long first = pid(run);
        ZooKeeperNemesis nemesis = new ZooKeeperNemesis(run, null);

        assertThat(nemesis.strike(choosing(true))).isEqualTo("kill ZooKeeper (pid " + first + ")");
        assertThat(ProcessHandle.of(first).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        String healed = nemesis.heal();

        long second = pid(run);
        started.add(second);
        assertThat(second).isNotEqualTo(first);
        assertThat(healed).startsWith("start ZooKeeper again (pid " + second + "), listening after");
        assertThat(ProcessHandle.of(second).map(ProcessHandle::isAlive).orElse(false)).isTrue();
        assertThat(ZooKeeperNemesis.commandLine(second)).containsExactly("bash", "-c", SCRIPT,
                run.portFile("zk").toString(), dir.resolve("fifo").toString());
        assertThat(run.portFile("zk")).exists();
        assertThat(nemesis.heal()).as("nothing left to heal").isEmpty();
    }

    @Test
    void aPausedServerIsResumed() throws Exception {
        RunDirectory run = standIn();
        long pid = pid(run);
        ZooKeeperNemesis nemesis = new ZooKeeperNemesis(run, null);

        assertThat(nemesis.strike(choosing(false))).isEqualTo("pause ZooKeeper (pid " + pid + ")");
        awaitState(pid, true); // a signal is delivered after kill(1) returns
        assertThat(nemesis.heal()).isEqualTo("resume ZooKeeper (pid " + pid + ")");
        awaitState(pid, false);
    }

    /** Writes its port file ($0), then waits on a FIFO it holds open both ways ($1): no child process. */
    private static final String SCRIPT = "echo 1 > \"$0\"; read -t 50 <> \"$1\"";

    private RunDirectory standIn() throws Exception {
        RunDirectory run = new RunDirectory(dir.resolve("run"));
        Files.createDirectories(run.dir());
        Path fifo = dir.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Process process = new ProcessBuilder("bash", "-c", SCRIPT, run.portFile("zk").toString(), fifo.toString())
                .redirectErrorStream(true).redirectOutput(run.logFile("zk").toFile()).start();
        started.add(process.pid());
        run.writePid("zk", process.pid());
        // Polled, as the nemesis itself waits for a real server's port file (the class's timeout bounds it).
        while (!Files.exists(run.portFile("zk"))) {
            assertThat(process.isAlive()).as("the stand-in runs").isTrue();
            Thread.sleep(10);
        }
        return run;
    }

    private static long pid(RunDirectory run) throws Exception {
        return Long.parseLong(Files.readString(run.pidFile("zk")).trim());
    }

    private List<Long> pidsNow() throws Exception {
        Path file = dir.resolve("run/zk.pid");
        return Files.exists(file) ? List.of(Long.parseLong(Files.readString(file).trim())) : List.of();
    }

    private static void awaitState(long pid, boolean stopped) throws Exception {
        while ((state(pid) == 'T') != stopped) {
            Thread.sleep(10); // bounded by the class's timeout
        }
    }

    /** The process's state letter in {@code /proc/<pid>/stat} ({@code T}: stopped). */
    private static char state(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    private static Random choosing(boolean kill) {
        return new Random(0) {
            @Override
            public boolean nextBoolean() {
                return kill;
            }
        };
    }
}
