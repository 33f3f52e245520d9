package io.hedgerow.loadgen.scenario;

import static io.hedgerow.loadgen.scenario.SleepingLeaves.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.scenario.FakeRoot.Received;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C in the middle of a faulty phase: the real {@code hedgerow loadgen} in a child JVM runs a
 * scenario that pauses one leaf 900 ms of every second and kills another, against a
 * {@link FakeRoot} that answers its searches and its restart. The test interrupts it (SIGINT) while
 * the leaf is stopped; the generator's shutdown hook must resume the paused leaf and restart the
 * killed one before the JVM exits. Without the hook, the leaf would stay stopped and no restart
 * would reach the root.
 */
class InterruptedScenarioTest {
    @TempDir
    Path dir;

    @Test
    void ctrlCResumesAPausedLeafAndRestartsAKilledOne() throws Exception {
        RunDirectory run = new RunDirectory(dir.resolve("run"));
        try (FakeRoot root = new FakeRoot(2);
             SleepingLeaves leaves = SleepingLeaves.start(run, 2)) {
            Path queries = Files.writeString(dir.resolve("queries.tsv"), "high_term\thedgerow\n");
            Path scenario = Files.writeString(dir.resolve("interrupted.json"), """
                    {"name": "interrupted", "target": "%s",
                     "phases": [{"name": "faulty", "duration": "10m", "rate": 20,
                       "faults": [{"type": "pause", "leaf": 0, "pause": "900ms", "every": "1s"},
                                  {"type": "kill", "leaf": 1, "at": "0s"}]}]}
                    """.formatted(root.uri()));
            Path output = dir.resolve("loadgen.log");
            Process loadgen = new ProcessBuilder(command("--scenario", scenario.toString(), "--queries", queries.toString(),
                    "--run-dir", run.dir().toString(), "--data", dir.toString(), "--results", dir.resolve("results").toString()))
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            try {
                Process killed = leaves.process(1);
                long paused = leaves.process(0).pid();
                assertThat(killed.waitFor(SleepingLeaves.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .as("leaf 1 killed; loadgen's output:%n%s", text(output)).isTrue();
                await(() -> SleepingLeaves.state(paused) == 'T', "leaf 0 paused");

                signal("INT", loadgen.pid());

                assertThat(loadgen.waitFor(SleepingLeaves.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .as("loadgen exits on SIGINT").isTrue();
                String log = text(output);
                assertThat(loadgen.exitValue()).as("ended by SIGINT (128 + 2); output:%n%s", log).isEqualTo(130);
                assertThat(SleepingLeaves.state(paused)).as("leaf 0 not left stopped; output:%n%s", log).isNotEqualTo('T');
                assertThat(root.next()).as("leaf 1 restarted; output:%n%s", log)
                        .isEqualTo(new Received("POST", "/admin/leaves/1/restart", ""));
            } finally {
                loadgen.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * This JVM's java, classpath and module flags, running the load generator's main class. If
     * SIGINT is ignored here (a build started in the background by a shell without job control), the
     * child would inherit that and never see the signal, so env(1) restores its default first.
     */
    private static List<String> command(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        if (sigintIgnored()) {
            command.addAll(List.of("env", "--default-signal=INT"));
        }
        command.add(ProcessHandle.current().info().command().orElseThrow());
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-modules") || flag.startsWith("--enable-native-access")
                    || flag.startsWith("--sun-misc-unsafe-memory-access")) {
                command.add(flag);
            }
        }
        command.addAll(List.of("-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.hedgerow.loadgen.LoadgenCli"));
        command.addAll(List.of(args));
        return command;
    }

    private static boolean sigintIgnored() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & (1L << (2 - 1))) != 0;
            }
        }
        return false;
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }

    private static String text(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "(none)";
    }
}
