package io.hedgerow.cli;

import io.hedgerow.coordination.ZooKeeperCommand;
import io.hedgerow.leaf.index.IndexCommand;
import io.hedgerow.leaf.server.LeafCommand;
import io.netty.util.ResourceLeakDetector;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code hedgerow} command line: every subcommand the launcher script runs in a JVM. */
@Command(name = "hedgerow", mixinStandardHelpOptions = true, version = "hedgerow 0.1.0",
        description = "Scatter-gather search that stays fast in the tail.",
        subcommands = {DemoCommand.class, IndexCommand.class, LocalCommand.class, RootCommand.class, LeafCommand.class,
                ZooKeeperCommand.class, SimulateCommand.class, ConfigCommand.class,
                CommandLine.HelpCommand.class})
public final class HedgerowCli implements Runnable {

    /** Read by {@link LogSetup} before picocli runs; declared here so that every subcommand accepts it. */
    @Option(names = LogSetup.OPTION, scope = ScopeType.INHERIT, paramLabel = "text|json",
            description = "Log lines as text (the default) or as JSON objects, one a line. The environment"
                    + " variable HEDGEROW_LOG_FORMAT does the same.")
    private String logFormat;

    public static void main(String[] args) {
        // Before anything asks for a logger: Logback reads the format when it configures itself.
        try {
            LogSetup.apply(args, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty's default leak detection records a stack trace for one buffer in 128: about a tenth
            // of the root's CPU at a few thousand queries a second. Tests run with it on; so can anyone
            // who passes -Dio.netty.leakDetection.level.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        int exitCode = newCommandLine().execute(args);
        System.exit(exitCode);
    }

    /** The command line with every subcommand, reading this process's environment. */
    public static CommandLine newCommandLine() {
        return newCommandLine(System.getenv());
    }

    /**
     * The command line with every subcommand, as tests can also run it: every command that runs
     * something takes {@code --config FILE} (or {@code HEDGEROW_CONFIG} from {@code env}), whose values
     * are its defaults ({@link ConfigDefaultProvider}).
     */
    public static CommandLine newCommandLine(Map<String, String> env) {
        CommandLine commandLine = new CommandLine(new HedgerowCli());
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            addConfigOption(sub);
        }
        ConfigKeys keys = ConfigKeys.of(commandLine.getCommandSpec());
        commandLine.setDefaultValueProvider(new ConfigDefaultProvider(keys, env));
        CommandLine print = commandLine.getSubcommands().get("config").getSubcommands().get("print");
        // Everything after the command to print belongs to that command.
        print.setStopAtPositional(true).setUnmatchedOptionsArePositionalParams(true);
        CommandLine.IParameterExceptionHandler usual = commandLine.getParameterExceptionHandler();
        commandLine.setParameterExceptionHandler((e, args) -> {
            if (e.getCause() instanceof ConfigException config) {
                e.getCommandLine().getErr().println("error: " + config.getMessage());
                return 2;
            }
            return usual.handleParseException(e, args);
        });
        return commandLine;
    }

    /** {@code --config FILE} on {@code line} and its subcommands; not on {@code index}, whose --config is its own. */
    private static void addConfigOption(CommandLine line) {
        String name = line.getCommandName();
        if (ConfigKeys.UNCONFIGURED_COMMANDS.contains(name) || name.equals("index")) {
            return;
        }
        line.getCommandSpec().addOption(ConfigDefaultProvider.newConfigOption());
        for (CommandLine sub : line.getSubcommands().values()) {
            addConfigOption(sub);
        }
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
