package io.hedgerow.cli;

import io.hedgerow.leaf.index.IndexCommand;
import io.hedgerow.leaf.server.LeafCommand;
import io.netty.util.ResourceLeakDetector;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code hedgerow} command line: every subcommand the launcher script runs in a JVM. */
@Command(name = "hedgerow", mixinStandardHelpOptions = true, version = "hedgerow 0.1.0",
        description = "Scatter-gather search that stays fast in the tail.",
        subcommands = {DemoCommand.class, IndexCommand.class, LocalCommand.class, RootCommand.class, LeafCommand.class,
                SimulateCommand.class,
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

    /** The command line with every subcommand, as tests can also run it. */
    public static CommandLine newCommandLine() {
        return new CommandLine(new HedgerowCli());
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
