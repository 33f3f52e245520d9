package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The configuration file through picocli's default-value provider: precedence, keys, types. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigFileTest {
    @TempDir
    Path dir;

    private Path file(String yaml) throws IOException {
        Path file = dir.resolve("hedgerow-" + System.nanoTime() + ".yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Parses {@code args} with a fresh command line and returns the value of {@code option} of {@code command}. */
    private static Object value(Map<String, String> env, List<String> command, String option, String... args) {
        CommandLine top = HedgerowCli.newCommandLine(env);
        List<String> all = new java.util.ArrayList<>(command);
        all.addAll(List.of(args));
        top.parseArgs(all.toArray(String[]::new));
        return EffectiveConfig.command(top, command).getCommandSpec().findOption(option).getValue();
    }

    @Test
    void aFlagBeatsTheFileWhichBeatsTheDefault() throws IOException {
        Path config = file("root: { hedge-budget: 0.05 }\n");

        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1")).isEqualTo(0.1);
        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1", "--config", config.toString()))
                .isEqualTo(0.05);
        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1", "--config", config.toString(),
                "--hedge-budget", "0.2")).isEqualTo(0.2);
    }

    @Test
    void hedgerowConfigNamesTheFileWhenNoFlagDoes() throws IOException {
        Path fromEnv = file("leaf: { slice: 2ms }\n");
        Path fromFlag = file("leaf: { slice: 3ms }\n");
        Map<String, String> env = Map.of(ConfigKeys.CONFIG_ENV, fromEnv.toString());

        assertThat(value(env, List.of("leaf"), "--slice", "--index", "x")).isEqualTo(Duration.ofMillis(2));
        assertThat(value(env, List.of("leaf"), "--slice", "--index", "x", "--config", fromFlag.toString()))
                .isEqualTo(Duration.ofMillis(3));
    }

    @Test
    void aRequiredOptionCanComeFromTheFile() throws IOException {
        Path config = file("root:\n  leaves: [127.0.0.1:9001, 127.0.0.1:9002]\n");

        assertThat(value(Map.of(), List.of("root"), "--leaves", "--config", config.toString()))
                .isEqualTo(List.of("127.0.0.1:9001", "127.0.0.1:9002"));
    }

    @Test
    void nestedKeysJoinWithADashAndMapOptionsTakeAMapping() throws IOException {
        Path config = file("""
                root:
                  hedge:
                    budget: 0.07
                    percentile: 99
                leaf:
                  queue-depth: { batch: 16, shadow: 4 }
                local:
                  leaf-arg: ["--queue-depth=batch=8,shadow=2", --slice=0s]
                """);

        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1", "--config", config.toString()))
                .isEqualTo(0.07);
        assertThat(value(Map.of(), List.of("root"), "--hedge-percentile", "--leaves", "a:1", "--config",
                config.toString())).isEqualTo(99.0);
        assertThat(value(Map.of(), List.of("leaf"), "--queue-depth", "--index", "x", "--config", config.toString()))
                .isEqualTo(Map.of("batch", 16, "shadow", 4));
        assertThat(value(Map.of(), List.of("local"), "--leaf-arg", "--config", config.toString()))
                .isEqualTo(List.of("--queue-depth=batch=8,shadow=2", "--slice=0s"));
    }

    @Test
    void theRootSectionAppliesToLocalsRootAndLocalStopReadsTheLocalSection() throws IOException {
        Path config = file("root: { hedge: tied }\nlocal: { data: /srv/hedgerow }\n");

        assertThat(value(Map.of(), List.of("local"), "--hedge", "--config", config.toString()).toString())
                .isEqualToIgnoringCase("tied");
        assertThat(value(Map.of(), List.of("local", "stop"), "--data", "--config", config.toString()))
                .isEqualTo(Path.of("/srv/hedgerow"));
    }

    @Test
    void anUnknownKeyStopsTheCommandNamingTheNearestValidOne() throws IOException {
        Path config = file("root:\n  hedge-budgte: 0.1\n");

        Run run = execute(Map.of(), "root", "--leaves", "a:1", "--config", config.toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("unknown key 'root.hedge-budgte'", "nearest valid key: 'root.hedge-budget'")
                .contains(config.toString());
    }

    @Test
    void anUnknownSectionIsAnErrorToo() throws IOException {
        Path config = file("leafs:\n  slice: 2ms\n");

        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config", config.toString()).err())
                .contains("unknown key 'leafs'", "nearest valid key: 'leaf'");
    }

    @Test
    void aValueOfTheWrongTypeNamesTheKeyAndTheTypeExpected() throws IOException {
        assertThat(execute(Map.of(), "root", "--leaves", "a:1", "--config", file("root: { hedge-budget: lots }\n").toString())
                .err()).contains("root.hedge-budget: 'lots' (expected: a number)");
        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config", file("leaf: { slice: 5 }\n").toString()).err())
                .contains("leaf.slice: 5 (expected: a duration such as 50ms, 2s or 1m");
        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config", file("leaf: { workers: 1.5 }\n").toString())
                .err()).contains("leaf.workers: 1.5 (expected: a whole number)");
        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config",
                file("leaf: { fault-injection: maybe }\n").toString()).err())
                .contains("leaf.fault-injection: 'maybe' (expected: true or false)");
        assertThat(execute(Map.of(), "root", "--leaves", "a:1", "--config", file("root: { hedge: sometimes }\n").toString())
                .err()).contains("root.hedge: 'sometimes' (expected: a MODE");
        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config",
                file("leaf: { queue-depth: 16 }\n").toString()).err())
                .contains("leaf.queue-depth: 16 (expected: a mapping of");
    }

    @Test
    void aKeyThatIsAlsoAPrefixCanBeBothAValueAndANestedMapping() throws IOException {
        Path nested = file("root: { hedge: { budget: 0.03 } }\n");
        Path flat = file("root: { hedge: tied, hedge-budget: 0.04 }\n");

        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1", "--config", nested.toString()))
                .isEqualTo(0.03);
        assertThat(value(Map.of(), List.of("root"), "--hedge-budget", "--leaves", "a:1", "--config", flat.toString()))
                .isEqualTo(0.04);
        assertThat(value(Map.of(), List.of("root"), "--hedge", "--leaves", "a:1", "--config", flat.toString()).toString())
                .isEqualToIgnoringCase("tied");
    }

    @Test
    void theSameKeyNestedAndFlatIsAnError() throws IOException {
        Path config = file("root: { hedge-budget: 0.1, hedge: { budget: 0.2 } }\n");

        assertThat(execute(Map.of(), "root", "--leaves", "a:1", "--config", config.toString()).err())
                .contains("root.hedge-budget is set twice");
    }

    @Test
    void aKeyGivenTwiceIsAnError() throws IOException {
        Path config = file("root: { hedge-budget: 0.1, hedge-budget: 0.2 }\n");

        assertThat(execute(Map.of(), "root", "--leaves", "a:1", "--config", config.toString()).err())
                .contains("Duplicate field 'hedge-budget'");
    }

    @Test
    void aMissingFileIsNamed() {
        assertThat(execute(Map.of(), "leaf", "--index", "x", "--config", dir.resolve("none.yaml").toString()).err())
                .contains("none.yaml: no such configuration file");
    }

    record Run(int exitCode, String out, String err) {
    }

    static Run execute(Map<String, String> env, String... args) {
        CommandLine top = HedgerowCli.newCommandLine(env);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        top.setOut(new PrintWriter(out, true));
        top.setErr(new PrintWriter(err, true));
        // Parse only: a command that passed its configuration would start a server.
        int exitCode;
        try {
            top.parseArgs(args);
            exitCode = 0;
        } catch (CommandLine.ParameterException e) {
            try {
                exitCode = top.getParameterExceptionHandler().handleParseException(e, args);
            } catch (Exception unexpected) {
                throw new AssertionError(unexpected);
            }
        }
        return new Run(exitCode, out.toString(), err.toString());
    }
}
