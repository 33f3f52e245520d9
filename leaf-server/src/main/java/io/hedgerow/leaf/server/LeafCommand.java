package io.hedgerow.leaf.server;

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

/** {@code hedgerow leaf}: runs one leaf server in the foreground until interrupted. */
@Command(name = "leaf", mixinStandardHelpOptions = true,
        description = {"Run a leaf server: it serves the partitions of one index that a root assigns to it.",
                "Runs in the foreground until Ctrl-C."})
public final class LeafCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--index", required = true, paramLabel = "DIR",
            description = "Index directory (the one holding index.json), e.g. data/europarl.")
    private Path indexDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "0", description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--workers", description = "Search threads (default: one per core, here ${DEFAULT-VALUE}).")
    private int workers = Runtime.getRuntime().availableProcessors();

    @Option(names = "--queue", defaultValue = "1000",
            description = "Sub-requests that may wait for a worker before the leaf answers busy (default: ${DEFAULT-VALUE}).")
    private int queueCapacity;

    @Option(names = "--port-file", paramLabel = "FILE",
            description = "Write the bound port to this file once listening (used by 'hedgerow local').")
    private Path portFile;

    @Option(names = "--exit-with-parent", hidden = true,
            description = "Exit when the parent process exits, so a killed 'local' cluster leaves nothing behind.")
    private boolean exitWithParent;

    @Override
    public Integer call() throws Exception {
        LeafConfig config = LeafConfig.defaults(indexDir)
                .withHost(host).withPort(port).withWorkers(workers).withQueueCapacity(queueCapacity);
        LeafServer server;
        try {
            server = LeafServer.start(config);
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "leaf-shutdown"));
        if (exitWithParent) {
            ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
        }
        if (portFile != null) {
            writeAtomically(portFile, Integer.toString(server.port()));
        }
        spec.commandLine().getOut().println("leaf listening on " + server.address() + " serving " + indexDir);
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }

    private static void writeAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
