package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The root-process nemesis on recorded signals and restarts: which root, and that each fault is mended once. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RootProcessNemesisTest {
    @TempDir
    Path dir;

    private RunDirectory run;
    private final List<String> actions = new ArrayList<>();

    @BeforeEach
    void pidFiles() throws IOException {
        run = new RunDirectory(dir);
        Files.writeString(run.pidFile("root-1"), "101\n");
        Files.writeString(run.pidFile("root-2"), "102\n");
    }

    private RootProcessNemesis nemesis() {
        return new RootProcessNemesis(run, 2, (signal, pid) -> actions.add(signal + " " + pid),
                root -> {
                    actions.add("restart root " + root);
                    return "restart root " + root + " (restart command)";
                },
                (pid, patience) -> true);
    }

    @Test
    void aKilledRootIsStartedAgainByItsNumberAndAPausedOneResumed() throws IOException {
        RootProcessNemesis nemesis = nemesis();
        Set<String> struck = new HashSet<>();
        Random random = new Random(11);
        for (int i = 0; i < 40; i++) {
            actions.clear();
            String what = nemesis.strike(random);
            int killed = nemesis.killed();
            int paused = nemesis.paused();
            String healed = nemesis.heal();

            if (killed != 0) {
                long pid = 100 + killed;
                assertThat(what).isEqualTo("kill root " + killed + " (pid " + pid + ")");
                assertThat(actions).containsExactly("KILL " + pid, "restart root " + killed);
                assertThat(healed).isEqualTo("restart root " + killed + " (restart command)");
            } else {
                long pid = 100 + paused;
                assertThat(what).isEqualTo("pause root " + paused + " (pid " + pid + ")");
                assertThat(actions).containsExactly("STOP " + pid, "CONT " + pid);
                assertThat(healed).isEqualTo("resume root " + paused);
            }
            assertThat(nemesis.heal()).isEmpty();
            struck.add(what.replaceAll(" \\(pid.*", ""));
        }
        assertThat(struck).containsExactlyInAnyOrder("kill root 1", "kill root 2", "pause root 1", "pause root 2");
    }

    @Test
    void aStrikeWhileARootIsDownMendsItFirst() throws IOException {
        RootProcessNemesis nemesis = nemesis();
        Random random = new Random(3);
        nemesis.strike(random);
        int down = Math.max(nemesis.killed(), nemesis.paused());
        actions.clear();

        String second = nemesis.strike(random);

        assertThat(second).contains(", then ");
        assertThat(actions.get(0)).isIn("restart root " + down, "CONT " + (100 + down));
    }

    @Test
    void aMissingPidFileFailsTheStrikeWithItsName() throws IOException {
        Files.delete(run.pidFile("root-1"));
        Files.delete(run.pidFile("root-2"));

        assertThatThrownBy(() -> nemesis().strike(new Random(1))).isInstanceOf(IOException.class)
                .hasMessageContaining("root-").hasMessageContaining("expected: the pid of root");
    }

    @Test
    void theRestartCommandMustSayWhereTheRootsNumberGoes() {
        assertThatThrownBy(() -> RootProcessNemesis.withRestartCommand(run, 2, "run/start-root.sh"))
                .hasMessageContaining("{root}");
    }
}
