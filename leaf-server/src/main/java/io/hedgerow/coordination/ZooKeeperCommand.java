package io.hedgerow.coordination;

import io.hedgerow.leaf.server.ExitWithParent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code hedgerow zk}: runs a standalone ZooKeeper ({@link EmbeddedZooKeeper}) in the foreground. */
@Command(name = "zk", mixinStandardHelpOptions = true,
        description = {"Run a standalone ZooKeeper server that holds a cluster's state (membership, primaries, terms,"
                + " in-sync sets), for clusters on one machine; on several machines use a ZooKeeper ensemble.",
                "Runs in the foreground until Ctrl-C."})
public final class ZooKeeperCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "" + EmbeddedZooKeeper.DEFAULT_PORT,
            description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "${env:HEDGEROW_DATA:-data}/zk",
            description = "Where ZooKeeper keeps its snapshots and transaction log (default: ${DEFAULT-VALUE}).")
    private Path dataDir;

    @Option(names = "--tick-ms", paramLabel = "MS", defaultValue = "" + EmbeddedZooKeeper.DEFAULT_TICK_MS,
            description = "ZooKeeper's tick; sessions may last 2 to 20 ticks (default: ${DEFAULT-VALUE}).")
    private int tickMs;

    @Option(names = "--port-file", paramLabel = "FILE",
            description = "Write the port listened on to FILE once serving (for --port 0).")
    private Path portFile;

    @Option(names = "--exit-with-parent", hidden = true,
            description = "Exit when the parent process exits, so a killed 'local' cluster leaves nothing behind.")
    private boolean exitWithParent;

    @Override
    public Integer call() throws Exception {
        EmbeddedZooKeeper server;
        try {
            server = EmbeddedZooKeeper.start(new EmbeddedZooKeeper.Config(host, port, dataDir, tickMs));
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: ZooKeeper did not start on " + host + ":" + port + " with data in "
                    + dataDir + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            spec.commandLine().getOut().println("zk stopped");
            spec.commandLine().getOut().flush();
            stopped.countDown();
        }, "zk-shutdown"));
        if (exitWithParent) {
            ExitWithParent.watch(() -> System.exit(0));
        }
        if (portFile != null) {
            Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
            Files.writeString(tmp, server.port() + "\n");
            Files.move(tmp, portFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        spec.commandLine().getOut().println("zk listening on " + server.connectString() + " with data in " + dataDir);
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
