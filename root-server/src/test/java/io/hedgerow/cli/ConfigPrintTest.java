package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code hedgerow config print}: each value with where it came from, as YAML that is itself a configuration. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigPrintTest {
    @TempDir
    Path dir;

    @Test
    void namesTheSourceOfEveryValue() throws IOException {
        Path config = Files.writeString(dir.resolve("hedgerow.yaml"),
                "local: { leaves: 3 }\nroot: { hedge-budget: 0.05 }\njvm: { leaf: -Xmx512m }\n");

        String printed = ConfigCommand.Print.print(Map.of("HEDGEROW_DATA", "/srv/data", "HEDGEROW_ROOT_JVM", "-Xmx3g"),
                config, List.of("local", "--replicas", "1"));

        assertThat(printed).contains("# file: " + config + " (--config)");
        assertThat(line(printed, "  leaves:")).contains("3").endsWith("# file " + config);
        assertThat(line(printed, "  replicas:")).contains("1").endsWith("# flag");
        assertThat(line(printed, "  data:")).contains("/srv/data").endsWith("# environment HEDGEROW_DATA");
        assertThat(line(printed, "  port:")).contains("8080").endsWith("# default");
        assertThat(line(printed, "  hedge-budget:")).contains("0.05").endsWith("# file " + config);
        assertThat(line(printed, "  root: ")).contains("-Xmx3g").endsWith("# environment HEDGEROW_ROOT_JVM");
        assertThat(line(printed, "  leaf: ")).contains("-Xmx512m").endsWith("# file " + config);
        assertThat(line(printed, "  loadgen: ")).contains("-XX:+UseZGC").endsWith("# default");
        // local's leaves read the leaf section: it is shown too
        assertThat(printed).contains("\nleaf:\n").contains("  slice: 1ms");
        assertThat(printed.substring(printed.indexOf("\nleaf:\n"))).contains("  index: ~")
                .containsPattern("  index: ~ +# set by local for each leaf");
    }

    @Test
    void showsARequiredOptionThatIsNotSet() {
        // (root's --leaves is optional since roots with --zk take leaves from membership: leaf --index is)
        String printed = ConfigCommand.Print.print(Map.of(), null, List.of("leaf"));

        assertThat(line(printed, "  index:")).contains("~").endsWith("# required, not set");
        assertThat(printed).contains("# file: none");
    }

    @Test
    void withoutACommandShowsEverySectionFromHedgerowConfig() throws IOException {
        Path config = Files.writeString(dir.resolve("env.yaml"), "leaf: { workers: 3 }\n");

        String printed = ConfigCommand.Print.print(Map.of(ConfigKeys.CONFIG_ENV, config.toString()), null, List.of());

        assertThat(printed).contains("# file: " + config + " (HEDGEROW_CONFIG)");
        for (String section : List.of("root", "leaf", "local", "demo", "index", "simulate", "jvm")) {
            assertThat(printed).contains("\n" + section + ":\n");
        }
        assertThat(line(printed, "  workers: 3")).endsWith("# file " + config);
    }

    @Test
    void itsOutputIsAConfigurationFileThatGivesTheSameValues() throws IOException {
        Path config = Files.writeString(dir.resolve("in.yaml"), """
                local: { leaves: 3, leaf-arg: ["--queue-depth=batch=8,shadow=2"] }
                root: { hedge: tied, admin-token: "a b: c" }
                leaf: { queue-depth: { batch: 16 } }
                """);
        String printed = ConfigCommand.Print.print(Map.of(), config, List.of("local", "--replicas", "1"));
        Path again = Files.writeString(dir.resolve("again.yaml"), printed);

        String reprinted = ConfigCommand.Print.print(Map.of(), again, List.of("local"));

        assertThat(values(reprinted)).isEqualTo(values(printed));
        assertThat(line(reprinted, "  leaf-arg:")).contains("\"--queue-depth=batch=8,shadow=2\"");
        assertThat(line(printed, "  admin-token:")).doesNotContain("a b: c").contains("~")
                .endsWith("# file " + config + "; set, a secret not shown");
    }

    @Test
    void aWrongKeyIsReported() throws IOException {
        Path config = Files.writeString(dir.resolve("bad.yaml"), "local: { leavs: 3 }\n");

        ConfigFileTest.Run run = ConfigFileTest.execute(Map.of(), "config", "print", "--config", config.toString(), "local");

        assertThat(run.err()).isEmpty(); // parsing 'config print' itself is fine; running it reports the file
        var top = HedgerowCli.newCommandLine(Map.of());
        var err = new java.io.StringWriter();
        top.setErr(new java.io.PrintWriter(err, true));
        assertThat(top.execute("config", "print", "--config", config.toString(), "local")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown key 'local.leavs' (nearest valid key: 'local.leaves')");
    }

    /** The lines without their comments (the sources), which differ between the two prints. */
    private static List<String> values(String printed) {
        return printed.lines().filter(l -> !l.startsWith("#")).map(l -> l.replaceFirst("\\s+#.*$", "")).toList();
    }

    private static String line(String printed, String start) {
        return printed.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in:\n" + printed));
    }
}
