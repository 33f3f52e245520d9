package io.hedgerow.cli;

import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.cluster.ClusterConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code hedgerow root}: runs a root server against leaves that are already running. */
@Command(name = "root", mixinStandardHelpOptions = true,
        description = {"Run a root server: the HTTP API in front of running leaf servers.",
                "It assigns partitions to the leaves, fans each query out and merges the hits.",
                "Runs in the foreground until Ctrl-C."})
final class RootCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--leaves", required = true, split = ",", paramLabel = "HOST:PORT",
            description = "Leaf addresses, comma-separated, e.g. 127.0.0.1:9001,127.0.0.1:9002.")
    private List<String> leaves;

    @Option(names = "--index", paramLabel = "DIR",
            description = "Index directory to read the index name and partition count from (optional).")
    private Path indexDir;

    @Option(names = "--index-name", defaultValue = "europarl",
            description = "Name of the index the leaves serve, when --index is not given (default: ${DEFAULT-VALUE}).")
    private String indexName;

    @Option(names = "--partitions", defaultValue = "16",
            description = "Partitions of the index, when --index is not given (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = "--replicas", defaultValue = "2",
            description = "Copies of each partition, on distinct leaves (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "HTTP address (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--timeout-ms", defaultValue = "1000",
            description = "Default query timeout in milliseconds (default: ${DEFAULT-VALUE}).")
    private long timeoutMillis;

    @Mixin
    private HedgeOptions hedge;

    @Mixin
    private TailOptions tail;

    @Override
    public Integer call() throws Exception {
        try {
            String name = indexName;
            int partitionCount = partitions;
            if (indexDir != null) {
                IndexManifest manifest = new PartitionStore(indexDir).readManifest();
                name = manifest.name();
                partitionCount = manifest.partitions();
            }
            ClusterConfig config = ClusterConfig.of(name, leaves, partitionCount, replicas)
                    .withDefaultTimeout(Duration.ofMillis(timeoutMillis))
                    .withHedge(hedge.toSettings())
                    .withTail(tail.toSettings());
            RootServer root = RootServer.start(config, host, port, Duration.ofSeconds(10));
            CountDownLatch stopped = Shutdown.closeOnExit(root);
            spec.commandLine().getOut().printf("root serving http://%s:%d/ over %d leaves%n", host, root.httpPort(), leaves.size());
            spec.commandLine().getOut().flush();
            stopped.await();
            return 0;
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }
}
