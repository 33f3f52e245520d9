package io.hedgerow.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hedgerow config}: shows the configuration a command would run with, and documents every key. */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = {"The configuration file (docs/configuration.md): what a command would run with and why.",
                "'config print [--config FILE] [COMMAND [ARG...]]' shows every key's value and its source."},
        subcommands = {ConfigCommand.Print.class, ConfigCommand.Jvm.class, ConfigCommand.Reference.class})
final class ConfigCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The environment the command line was made with. */
    static Map<String, String> env(CommandSpec spec) {
        ConfigDefaultProvider provider = ConfigDefaultProvider.of(spec);
        return provider == null ? Map.of() : provider.env();
    }

    @Command(name = "print", mixinStandardHelpOptions = true,
            description = {"Print the effective configuration as YAML, each value with its source: flag, file,",
                    "environment or default. With COMMAND (and its flags), that command's; without, every section's",
                    "from the file and the defaults. The output is itself a configuration file."})
    static final class Print implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--config", paramLabel = "FILE",
                description = "The configuration file (default: the one " + ConfigKeys.CONFIG_ENV + " names, if any).")
        private Path configFile;

        @Parameters(arity = "0..*", paramLabel = "COMMAND [ARG...]",
                description = "A command (root, leaf, local, demo, index, simulate, 'local stop', ...) and its flags.")
        private List<String> command = new ArrayList<>();

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try {
                out.print(print(env(spec), configFile, command));
                out.flush();
                return 0;
            } catch (ConfigException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return 2;
            } catch (CommandLine.ParameterException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return 2;
            }
        }

        /** The effective configuration of {@code command} (empty: of every section) as commented YAML. */
        static String print(Map<String, String> env, Path configFile, List<String> command) {
            Map<String, String> environment = new HashMap<>(env);
            if (configFile != null) {
                environment.put(ConfigKeys.CONFIG_ENV, configFile.toString());
            }
            List<EffectiveConfig.Row> rows = new ArrayList<>();
            StringBuilder out = new StringBuilder();
            ConfigFile file = null;
            String origin = configFile != null ? ConfigKeys.CONFIG_OPTION : null;
            if (command.isEmpty()) {
                out.append("# The effective configuration of every command: the file's values and the defaults.\n");
                for (String name : List.of("root", "leaf", "local", "demo", "index", "simulate")) {
                    ParsedCommand parsed = parse(environment, List.of(name));
                    file = parsed.provider().fileFor(parsed.spec());
                    if (origin == null) {
                        origin = parsed.provider().configOrigin(parsed.spec());
                    }
                    for (EffectiveConfig.Row row : EffectiveConfig.rows(parsed.spec(), parsed.provider())) {
                        if (rows.stream().noneMatch(r -> r.key().equals(row.key()))) {
                            rows.add(row);
                        }
                    }
                }
            } else {
                ParsedCommand parsed = parse(environment, command);
                file = parsed.provider().fileFor(parsed.spec());
                if (origin == null) {
                    origin = parsed.provider().configOrigin(parsed.spec());
                }
                out.append("# The effective configuration of 'hedgerow ").append(parsed.spec().qualifiedName(" ")
                        .replaceFirst("^hedgerow ", "")).append("'.\n");
                rows.addAll(EffectiveConfig.rows(parsed.spec(), parsed.provider()));
                String top = parsed.spec().qualifiedName(" ").split(" ")[1];
                if (top.equals("local") || top.equals("demo")) {
                    ParsedCommand leaf = parse(environment, List.of("leaf"));
                    for (EffectiveConfig.Row row : EffectiveConfig.rows(leaf.spec(), leaf.provider())) {
                        String name = row.key().substring(row.key().indexOf('.') + 1);
                        rows.add(SET_BY_LOCAL.contains(name) ? new EffectiveConfig.Row(row.key(), row.option(), null,
                                "set by " + top + " for each leaf") : row);
                    }
                    out.append("# Its leaves read the leaf section, but local sets index, host, port, port-file,\n"
                            + "# cluster-secret-file, node-id, exit-with-parent, tls-cert and tls-key itself, and workers\n"
                            + "# and warmup (from local.leaf-workers and local.leaf-warmup unless only leaf.* sets them).\n");
                }
            }
            out.append("# file: ").append(file == null ? "none" : file.path() + " (" + origin + ")").append('\n');
            for (String role : List.of("root", "leaf", "loadgen")) {
                JvmOptions.Resolved jvm = JvmOptions.resolve(role, environment, file);
                rows.add(new EffectiveConfig.Row(ConfigFile.JVM_SECTION + "." + role, null,
                        String.join(" ", jvm.options()), jvm.source()));
            }
            out.append(EffectiveConfig.yaml(rows));
            return out.toString();
        }

        /** The leaf flags {@code local} gives each leaf itself (LeafSpawner). */
        private static final java.util.Set<String> SET_BY_LOCAL = java.util.Set.of("index", "host", "port", "port-file",
                "cluster-secret-file", "node-id", "exit-with-parent");

        private record ParsedCommand(CommandSpec spec, ConfigDefaultProvider provider) {
        }

        private static ParsedCommand parse(Map<String, String> env, List<String> tokens) {
            CommandLine top = HedgerowCli.newCommandLine(env);
            CommandLine target = EffectiveConfig.command(top, tokens);
            if (target == top) {
                throw new CommandLine.ParameterException(top, "'" + tokens.getFirst() + "' is not a command (expected: "
                        + String.join(", ", top.getSubcommands().keySet()) + ")");
            }
            try {
                top.parseArgs(tokens.toArray(String[]::new));
            } catch (CommandLine.MissingParameterException e) {
                // Shown as "required, not set".
            } catch (CommandLine.ParameterException e) {
                if (e.getCause() instanceof ConfigException config) {
                    throw config;
                }
                throw e;
            }
            return new ParsedCommand(target.getCommandSpec(), ConfigDefaultProvider.of(target.getCommandSpec()));
        }
    }

    @Command(name = "jvm", mixinStandardHelpOptions = true,
            description = {"Print each role's JVM options, one role a line: ROLE, a tab, its options. The ./hedgerow",
                    "launcher runs this when a configuration file is in use. Environment (HEDGEROW_ROOT_JVM,",
                    "HEDGEROW_LEAF_JVM, HEDGEROW_LOADGEN_JVM) before the file's jvm section before the defaults."})
    static final class Jvm implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--config", paramLabel = "FILE",
                description = "The configuration file (default: the one " + ConfigKeys.CONFIG_ENV + " names, if any).")
        private Path configFile;

        @Override
        public Integer call() {
            Map<String, String> env = env(spec);
            try {
                Path path = configFile != null ? configFile
                        : env.get(ConfigKeys.CONFIG_ENV) != null ? Path.of(env.get(ConfigKeys.CONFIG_ENV)) : null;
                ConfigFile file = path == null ? null : ConfigFile.load(path, ConfigDefaultProvider.of(spec).keys());
                for (String role : List.of("root", "leaf", "loadgen")) {
                    spec.commandLine().getOut().println(role + "\t" + String.join(" ",
                            JvmOptions.resolve(role, env, file).options()));
                }
                spec.commandLine().getOut().flush();
                return 0;
            } catch (ConfigException e) {
                spec.commandLine().getErr().println("error: " + e.getMessage());
                return 2;
            }
        }
    }

    @Command(name = "reference", mixinStandardHelpOptions = true,
            description = "Print the configuration reference (docs/configuration.md) as Markdown, from the commands' options.")
    static final class Reference implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().getOut().print(ConfigReference.markdown());
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
