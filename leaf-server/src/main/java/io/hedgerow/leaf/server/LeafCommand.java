package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Durations;
import io.hedgerow.leaf.fault.InjectedDelay;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
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

    @Option(names = "--fault-injection",
            description = "Obey requests to inject faults (delays), as a root's /admin/leaves/{n}/delay endpoint "
                    + "sends them. For tests and demos; off by default, and the leaf then refuses them.")
    private boolean faultInjection;

    @Option(names = "--inject-delay", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --fault-injection: from the start, hold sub-requests for DURATION (e.g. 50ms) on "
                    + "their worker, as a slow disk or a GC pause would.")
    private Duration injectDelay;

    @Option(names = "--inject-delay-probability", paramLabel = "P",
            description = "With --inject-delay: the chance, 0..1, that one sub-request is delayed (default: 1).")
    private Double injectDelayProbability;

    @Option(names = "--inject-delay-for", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --inject-delay: how long the delay lasts before it clears by itself (default and maximum: 1h).")
    private Duration injectDelayFor;

    @Option(names = "--warmup", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "3s",
            description = "Run warm-up searches on newly assigned partitions for this long before serving them, so"
                    + " the first real queries do not wait for the JIT; 0s for none (default: ${DEFAULT-VALUE}).")
    private Duration warmup;

    @Option(names = "--exit-with-parent", hidden = true,
            description = "Exit when the parent process exits, so a killed 'local' cluster leaves nothing behind.")
    private boolean exitWithParent;

    @Override
    public Integer call() throws Exception {
        LeafServer server;
        try {
            LeafConfig config = LeafConfig.defaults(indexDir)
                    .withHost(host).withPort(port).withWorkers(workers).withQueueCapacity(queueCapacity)
                    .withFaultInjection(faultInjection).withInitialDelay(initialDelay()).withWarmup(warmup);
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

    /** The delay the flags ask for from the start, or null. */
    private InjectedDelay initialDelay() {
        if (injectDelay == null) {
            if (injectDelayProbability != null || injectDelayFor != null) {
                throw new IllegalArgumentException("--inject-delay-probability and --inject-delay-for need --inject-delay");
            }
            return null;
        }
        if (!faultInjection) {
            throw new IllegalArgumentException("--inject-delay needs --fault-injection (fault injection is off unless enabled)");
        }
        if (injectDelay.isZero()) {
            throw new IllegalArgumentException("--inject-delay: " + Durations.format(injectDelay) + " (expected: > 0)");
        }
        double probability = injectDelayProbability == null ? 1.0 : injectDelayProbability;
        Duration lasting = injectDelayFor == null ? InjectedDelay.MAX_DURATION : injectDelayFor;
        if (!(probability > 0 && probability <= 1)) {
            throw new IllegalArgumentException("--inject-delay-probability: " + probability + " (expected: > 0 and <= 1)");
        }
        if (injectDelay.compareTo(InjectedDelay.MAX_DELAY) > 0) {
            throw new IllegalArgumentException("--inject-delay: " + Durations.format(injectDelay)
                    + " (expected: at most " + Durations.format(InjectedDelay.MAX_DELAY) + ")");
        }
        if (lasting.isZero() || lasting.compareTo(InjectedDelay.MAX_DURATION) > 0) {
            throw new IllegalArgumentException("--inject-delay-for: " + Durations.format(lasting)
                    + " (expected: > 0 and at most " + Durations.format(InjectedDelay.MAX_DURATION) + ")");
        }
        return InjectedDelay.of(injectDelay, probability, lasting);
    }

    /** Reads {@code 50ms}, {@code 2s}, {@code 1m}, {@code 1h}; also for the other commands' duration flags. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Durations.parse(value);
        }
    }

    private static void writeAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
