package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * No flag without a key: every option of every command (walked from picocli's specs) has a key, and a
 * value given under that key in a file reaches the option exactly as the same text given as the flag.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConfigKeysTest {
    /** Texts tried, in order, for a value the flag accepts and that differs from the default. */
    private static final List<String> CANDIDATES = List.of("7", "3", "0.25", "7ms", "tied", "exponential", "random",
            "127.0.0.1:9001", "batch=3", "leaves=10,100", "some-text", "none", "fixed:5ms", "europarl", "body", "on",
            "off", "choice");

    @TempDir
    Path dir;

    /** Each command's option values with no flag and no file, by option name: parsed once per command. */
    private final Map<String, Map<String, Object>> defaults = new java.util.HashMap<>();

    private static Map<String, Object> allValues(List<String> command) {
        CommandLine top = HedgerowCli.newCommandLine(Map.of());
        try {
            top.parseArgs(command.toArray(String[]::new));
        } catch (CommandLine.MissingParameterException e) {
            // Required options: null by default.
        }
        Map<String, Object> values = new java.util.HashMap<>();
        for (OptionSpec option : EffectiveConfig.command(top, command).getCommandSpec().options()) {
            values.put(option.longestName(), option.getValue());
        }
        return values;
    }

    @Test
    void everyOptionOfEveryCommandHasAKeyThatRoundTrips() throws IOException {
        CommandLine top = HedgerowCli.newCommandLine(Map.of());
        ConfigKeys keys = ConfigKeys.of(top.getCommandSpec());
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (var command : keys.commands().entrySet()) {
            for (OptionSpec option : command.getValue().options()) {
                if (!ConfigKeys.configurable(option)) {
                    continue;
                }
                String where = "'" + command.getKey() + " " + option.longestName() + "'";
                String key = keys.keyOf(option);
                if (key == null) {
                    problems.add(where + " has no key");
                    continue;
                }
                String problem = roundTrip(command.getKey(), option, key);
                if (problem != null) {
                    problems.add(where + " (" + key + "): " + problem);
                }
                checked++;
            }
        }
        assertThat(problems).isEmpty();
        assertThat(checked).as("options checked").isGreaterThan(200);
    }

    @Test
    void optionsSharingAKeyShareItsType() {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());
        for (String key : keys.keys()) {
            List<OptionSpec> options = keys.options(key);
            for (OptionSpec option : options) {
                assertThat(option.type()).as(key).isEqualTo(options.getFirst().type());
                assertThat(option.splitRegex()).as(key).isEqualTo(options.getFirst().splitRegex());
            }
        }
        assertThat(keys.options("local.data")).hasSize(4); // local, demo, local stop, local restart
        assertThat(keys.options("root.hedge-budget")).hasSizeGreaterThanOrEqualTo(3); // root, local, demo
    }

    @Test
    void theCommandsSharingTheRootsSettingsReadThemUnderRoot() {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());

        assertThat(keys.keyOf(keys.commands().get("local").findOption("--hedge-budget"))).isEqualTo("root.hedge-budget");
        assertThat(keys.keyOf(keys.commands().get("demo").findOption("--admission"))).isEqualTo("root.admission");
        assertThat(keys.keyOf(keys.commands().get("demo").findOption("--leaves"))).isEqualTo("local.leaves");
        assertThat(keys.keyOf(keys.commands().get("demo").findOption("--no-serve"))).isEqualTo("demo.no-serve");
        assertThat(keys.keyOf(keys.commands().get("root").findOption("--leaves"))).isEqualTo("root.leaves");
        assertThat(keys.keyOf(keys.commands().get("leaf").findOption("--slice"))).isEqualTo("leaf.slice");
        assertThat(keys.keyOf(keys.commands().get("local restart").findOption("--timeout"))).isEqualTo("local.timeout");
        assertThat(keys.keyOf(keys.commands().get("index").findOption("--config"))).isEqualTo("index.config");
        assertThat(keys.commands()).doesNotContainKeys("config", "help", "config print");
    }

    @Test
    void theOptionsEveryCommandInheritsHaveNoKey() {
        ConfigKeys keys = ConfigKeys.of(HedgerowCli.newCommandLine(Map.of()).getCommandSpec());

        for (String command : List.of("root", "local", "local stop", "leaf", "demo")) {
            OptionSpec logFormat = keys.commands().get(command).findOption(LogSetup.OPTION);
            assertThat(logFormat).as(command).isNotNull();
            assertThat(ConfigKeys.configurable(logFormat)).as(command).isFalse();
            assertThat(keys.keyOf(logFormat)).as(command).isNull();
        }
        assertThat(keys.keys()).noneMatch(key -> key.endsWith("." + LogSetup.OPTION.substring(2)));
    }

    /** Null when a file's value arrives as the flag's; else what went wrong. */
    private String roundTrip(String path, OptionSpec option, String key) throws IOException {
        List<String> command = List.of(path.split(" "));
        Object byDefault = defaults.computeIfAbsent(path, p -> allValues(command)).get(option.longestName());
        for (Sample sample : samples(option)) {
            Object byFlag;
            try {
                byFlag = parse(command, option, sample.flag(), null);
            } catch (CommandLine.ParameterException e) {
                continue;
            }
            if (Objects.equals(byFlag, byDefault)) {
                continue;
            }
            String section = key.substring(0, key.indexOf('.'));
            Path file = Files.writeString(dir.resolve(key + ".yaml"),
                    section + ":\n  " + key.substring(key.indexOf('.') + 1) + ": " + sample.yaml() + "\n");
            Object byFile;
            try {
                byFile = parse(command, option, List.of(), file);
            } catch (CommandLine.ParameterException e) {
                return "the file's " + sample.yaml() + " fails: " + e.getMessage();
            }
            return Objects.equals(byFile, byFlag) ? null
                    : "the file's " + sample.yaml() + " gives " + byFile + ", the flag's " + sample.flag() + " " + byFlag;
        }
        return "no sample value the flag accepts and that differs from the default (add one to CANDIDATES)";
    }

    private record Sample(List<String> flag, String yaml) {
    }

    private static List<Sample> samples(OptionSpec option) {
        String name = option.longestName();
        if (option.type() == boolean.class || option.type() == Boolean.class) {
            List<String> off = option.negatable() ? List.of("--no-" + name.substring(2)) : List.of(name + "=false");
            return List.of(new Sample(List.of(name), "true"), new Sample(off, "false"));
        }
        List<Sample> samples = new ArrayList<>();
        for (String candidate : CANDIDATES) {
            String yaml;
            if (Map.class.isAssignableFrom(option.type())) {
                int equals = candidate.indexOf('=');
                if (equals < 0) {
                    continue;
                }
                yaml = "{" + candidate.substring(0, equals) + ": " + candidate.substring(equals + 1) + "}";
            } else {
                yaml = option.isMultiValue() ? "[" + EffectiveConfig.scalar(candidate) + "]" : EffectiveConfig.scalar(candidate);
            }
            samples.add(new Sample(List.of(name, candidate), yaml));
        }
        return samples;
    }

    /** One command line for every parse that needs no environment: picocli resets it before each parse. */
    private final CommandLine shared = HedgerowCli.newCommandLine(Map.of());

    /** The option's value after parsing the command with {@code flag}, reading {@code file} (null: none). */
    private Object parse(List<String> command, OptionSpec option, List<String> flag, Path file) {
        // index's --config is its own: it reads a configuration file only through HEDGEROW_CONFIG.
        boolean throughEnvironment = file != null && command.getFirst().equals("index");
        CommandLine top = throughEnvironment
                ? HedgerowCli.newCommandLine(Map.of(ConfigKeys.CONFIG_ENV, file.toString())) : shared;
        List<String> args = new ArrayList<>(command);
        args.addAll(flag);
        if (file != null && !throughEnvironment) {
            args.addAll(List.of(ConfigKeys.CONFIG_OPTION, file.toString()));
        }
        try {
            top.parseArgs(args.toArray(String[]::new));
        } catch (CommandLine.MissingParameterException e) {
            // The other required options: beside the point here.
        }
        CommandSpec spec = EffectiveConfig.command(top, command).getCommandSpec();
        return spec.findOption(option.longestName()).getValue();
    }
}
