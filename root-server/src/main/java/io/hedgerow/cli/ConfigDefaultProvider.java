package io.hedgerow.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Picocli's defaults from the configuration file: a flag on the command line wins, then the file's
 * value, then the option's built-in default. Picocli asks for defaults after it has parsed the command
 * line, so the command's own {@code --config} is known by then; without it, {@code HEDGEROW_CONFIG}
 * names the file; without either, there is none.
 *
 * <p>Assumptions and guarantees: one per command line, used by the thread that parses it. Each file
 * is read and checked once, on the first default asked for, so a wrong key stops the command before
 * it does anything.
 */
final class ConfigDefaultProvider implements IDefaultValueProvider {
    /** The description key of the {@code --config} options this class reads ({@link HedgerowCli} adds them). */
    static final String CONFIG_DESCRIPTION_KEY = "hedgerow.config";

    private final ConfigKeys keys;
    private final Map<String, String> env;
    private final Map<Path, ConfigFile> loaded = new HashMap<>();

    ConfigDefaultProvider(ConfigKeys keys, Map<String, String> env) {
        this.keys = keys;
        this.env = Map.copyOf(env);
    }

    /** The provider of the command line {@code command} belongs to, or null when it has none of this kind. */
    static ConfigDefaultProvider of(CommandSpec command) {
        return command.defaultValueProvider() instanceof ConfigDefaultProvider provider ? provider : null;
    }

    ConfigKeys keys() {
        return keys;
    }

    Map<String, String> env() {
        return env;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        if (isConfigOption(option)) {
            return env.get(ConfigKeys.CONFIG_ENV);
        }
        String key = keys.keyOf(option);
        if (key == null) {
            return null;
        }
        ConfigFile file = fileFor(option.command());
        return file == null ? null : file.value(key);
    }

    /** Whether {@code option} is a {@code --config} that names the configuration file. */
    static boolean isConfigOption(OptionSpec option) {
        return CONFIG_DESCRIPTION_KEY.equals(option.descriptionKey());
    }

    /** The file {@code command} reads, or null for none. */
    ConfigFile fileFor(CommandSpec command) {
        Path path = configPath(command);
        if (path == null) {
            return null;
        }
        return loaded.computeIfAbsent(path.toAbsolutePath().normalize(), p -> ConfigFile.load(path, keys));
    }

    /** Where the file named for {@code command} comes from: "--config" or the environment variable; null for none. */
    String configOrigin(CommandSpec command) {
        OptionSpec own = configOption(command);
        if (own != null && !own.originalStringValues().isEmpty()) {
            return ConfigKeys.CONFIG_OPTION;
        }
        return env.get(ConfigKeys.CONFIG_ENV) != null ? ConfigKeys.CONFIG_ENV : null;
    }

    private Path configPath(CommandSpec command) {
        OptionSpec own = configOption(command);
        if (own != null && own.getValue() != null) {
            return own.getValue();
        }
        String fromEnv = env.get(ConfigKeys.CONFIG_ENV);
        return fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv);
    }

    private static OptionSpec configOption(CommandSpec command) {
        for (OptionSpec option : command.options()) {
            if (isConfigOption(option)) {
                return option;
            }
        }
        return null;
    }

    /** A {@code --config FILE} option for a command. */
    static OptionSpec newConfigOption() {
        return OptionSpec.builder(ConfigKeys.CONFIG_OPTION)
                .paramLabel("FILE")
                .type(Path.class)
                .descriptionKey(CONFIG_DESCRIPTION_KEY)
                .description("Read defaults from this YAML configuration file (flags still win; default: the file the"
                        + " environment variable " + ConfigKeys.CONFIG_ENV + " names, if any). See"
                        + " docs/configuration.md and 'hedgerow config print'.")
                .build();
    }
}
