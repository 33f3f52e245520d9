package io.hedgerow.cli;

import io.hedgerow.coordination.ZooKeeperCommand;
import io.hedgerow.leaf.index.IndexCommand;
import io.hedgerow.leaf.server.LeafCommand;
import io.netty.util.ResourceLeakDetector;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code hedgerow} command line: every subcommand the launcher script runs in a JVM. */
@Command(name = "hedgerow", mixinStandardHelpOptions = true, version = "hedgerow 0.1.0",
        description = "Scatter-gather search that stays fast in the tail.",
        subcommands = {DemoCommand.class, IndexCommand.class, LocalCommand.class, RootCommand.class, LeafCommand.class,
                ZooKeeperCommand.class, SimulateCommand.class,
                CommandLine.HelpCommand.class})
public final class HedgerowCli implements Runnable {

    public static void main(String[] args) {
        // One line per log record; set before anything touches java.util.logging.
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
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
