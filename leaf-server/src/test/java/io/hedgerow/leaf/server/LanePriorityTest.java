package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What {@code --lane-priority} accepts, and that a thread really lowers itself (on Linux, read back from /proc). */
class LanePriorityTest {
    /** Linux's number for SCHED_IDLE in /proc/.../stat. */
    private static final String SCHED_IDLE = "5";

    @Test
    void parsesIdleNormalAndNiceValues() {
        assertThat(LanePriority.parse("idle")).isEqualTo(LanePriority.IDLE);
        assertThat(LanePriority.parse(" Normal ")).isEqualTo(LanePriority.NORMAL);
        assertThat(LanePriority.parse("nice:10")).isEqualTo(new LanePriority(LanePriority.Kind.NICE, 10));
        assertThat(LanePriority.parse("nice:19").toString()).isEqualTo("nice:19");
    }

    @Test
    void refusesAnythingElseNamingWhatItExpects() {
        for (String bad : new String[] {"nice:0", "nice:20", "nice:-5", "nice:", "low", ""}) {
            assertThatThrownBy(() -> LanePriority.parse(bad)).as(bad)
                    .hasMessage("lane priority: '" + bad + "' (expected: idle, normal or nice:N with N from 1 to 19)");
        }
    }

    @Test
    void idleMovesTheCallingThreadToSchedIdle() throws Exception {
        assumeThat(Files.exists(Path.of("/proc/thread-self/stat"))).as("Linux").isTrue();
        String[] outcome = lowerOnANewThread(LanePriority.IDLE);
        assumeThat(outcome[0]).as("chrt worked here").isEqualTo("idle");
        assertThat(outcome[1]).as("policy").isEqualTo(SCHED_IDLE);
    }

    @Test
    void niceRenicesTheCallingThreadOnly() throws Exception {
        assumeThat(Files.exists(Path.of("/proc/thread-self/stat"))).as("Linux").isTrue();
        String[] outcome = lowerOnANewThread(new LanePriority(LanePriority.Kind.NICE, 7));
        assumeThat(outcome[0]).as("renice worked here").isEqualTo("nice:7");
        assertThat(outcome[2]).as("nice").isEqualTo("7");
        assertThat(statFields(Path.of("/proc/thread-self/stat"))[16]).as("this thread's nice").isEqualTo("0");
    }

    @Test
    void normalLeavesTheThreadAlone() {
        assertThat(LanePriority.NORMAL.lowerCallingThread()).isEqualTo("normal");
    }

    /** On a new thread: what lowering said, then the thread's scheduling policy and nice value, read after. */
    private static String[] lowerOnANewThread(LanePriority priority) throws InterruptedException {
        AtomicReference<String[]> result = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            String said = priority.lowerCallingThread();
            try {
                String[] stat = statFields(Path.of("/proc/thread-self/stat"));
                result.set(new String[] {said, stat[38], stat[16]});
            } catch (IOException e) {
                result.set(new String[] {said, "unreadable", "unreadable"});
            }
        });
        thread.start();
        thread.join();
        return result.get();
    }

    /** The fields after the command name of a /proc stat line: index 16 is nice, 38 the policy. */
    private static String[] statFields(Path stat) throws IOException {
        String line = Files.readString(stat);
        return line.substring(line.lastIndexOf(')') + 2).strip().split(" ");
    }
}
