package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JavaLauncherTest {

    @Test
    void readsOneLeafFlagPerLineIgnoringBlankLines() {
        assertThat(JavaLauncher.flagLines("-XX:AOTCache=/data/leaf one.aot\n\n  -Xlog:aot*=off  \r\n"))
                .containsExactly("-XX:AOTCache=/data/leaf one.aot", "-Xlog:aot*=off");
    }

    @Test
    void hasNoLeafFlagsWhenThePropertyIsUnsetOrEmpty() {
        assertThat(JavaLauncher.flagLines(null)).isEmpty();
        assertThat(JavaLauncher.flagLines("")).isEmpty();
    }

    @Test
    void refusesALineThatIsNotAFlag() {
        assertThatThrownBy(() -> JavaLauncher.flagLines("-Xlog:aot*=off\nleaf.aot"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'leaf.aot'");
    }

    @Test
    void putsExtraFlagsAfterTheStandardOnesAndBeforeTheClassPath() {
        JavaLauncher launcher = new JavaLauncher("java", "hedgerow.jar", "1g", List.of("-XX:AOTCache=leaf.aot"));

        List<String> command = launcher.command(List.of("-XX:+ExitOnOutOfMemoryError"), List.of("leaf"));

        assertThat(command).containsSubsequence(JavaLauncher.jvmFlags());
        assertThat(command).containsSubsequence("-XX:+UseParallelGC", "-Xmx1g", "-XX:AOTCache=leaf.aot",
                "-XX:+ExitOnOutOfMemoryError", "-cp", "hedgerow.jar", JavaLauncher.MAIN_CLASS, "leaf");
    }

    @Test
    void addsNoFlagsByDefault() {
        JavaLauncher launcher = new JavaLauncher("java", "hedgerow.jar", "1g");

        assertThat(launcher.command(List.of("leaf"))).containsExactlyElementsOf(concat("java", JavaLauncher.jvmFlags(),
                "-XX:+UseParallelGC", "-Xmx1g", "-cp", "hedgerow.jar", JavaLauncher.MAIN_CLASS, "leaf"));
    }

    @Test
    void roleOptionsReplaceTheDefaultCollectorAndHeap() {
        JavaLauncher launcher = new JavaLauncher("java", "hedgerow.jar", "1g").withOptions(List.of("-XX:+UseG1GC", "-Xmx3g"));

        assertThat(launcher.command(List.of("leaf"))).containsExactlyElementsOf(concat("java", JavaLauncher.jvmFlags(),
                "-XX:+UseG1GC", "-Xmx3g", "-cp", "hedgerow.jar", JavaLauncher.MAIN_CLASS, "leaf"));
    }

    private static List<String> concat(String first, List<String> middle, String... rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(middle);
        all.addAll(List.of(rest));
        return all;
    }
}
