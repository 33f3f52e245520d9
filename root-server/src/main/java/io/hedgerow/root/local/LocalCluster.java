package io.hedgerow.root.local;

import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.api.HedgerowClient;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.http.HttpSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A whole cluster on this machine: each leaf its own JVM process (so a fault can pause or kill
 * one), the root in this process. Pid files go to a {@link RunDirectory}; closing stops every
 * process it started, and leaves also exit by themselves if this process dies.
 */
public final class LocalCluster implements AutoCloseable {
    /**
     * @param indexDir     the index to serve
     * @param leaves       leaf processes
     * @param replicas     copies of each partition
     * @param host         address every server binds
     * @param httpPort     the root's HTTP port (0: a free one)
     * @param runDirectory where pid files, port files and leaf logs go
     * @param launcher     how to start a leaf JVM
     * @param startTimeout how long to wait for each leaf to listen and for the root to reach them
     * @param faultInjection start the leaves with {@code --fault-injection}, so that
     *                     {@code /admin/leaves/{n}/delay} and {@code /stall} work (without it the
     *                     leaves refuse)
     * @param leafWarmup   each leaf's {@code --warmup}: how long it runs warm-up searches before serving
     * @param hedge        the root's hedging settings
     * @param leafWorkers  each leaf's {@code --workers}; 0 for the leaf's default (one per core)
     * @param queryOfDeath each leaf's {@code --query-of-death}: a leaf halts when a query holding this
     *                     token reaches it; null for none; only with {@code faultInjection}
     * @param leafArguments more arguments for every leaf's command line (e.g. {@code --slice=0s}), after the others
     * @param admission    the root's admission control
     * @param adminToken   the token the root's admin routes require; null: a new random one, written to
     *                     {@code <run dir>/admin-token}
     */
    public record Options(Path indexDir, int leaves, int replicas, String host, int httpPort,
            RunDirectory runDirectory, JavaLauncher launcher, Duration startTimeout, boolean faultInjection,
            Duration leafWarmup, HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath,
            List<String> leafArguments, AdmissionSettings admission, String adminToken) {
        public Options {
            Objects.requireNonNull(admission, "admission");
            leafArguments = List.copyOf(leafArguments);
            if (queryOfDeath != null && (queryOfDeath.isEmpty() || !faultInjection)) {
                throw new IllegalArgumentException("queryOfDeath: '" + queryOfDeath
                        + "' (expected: a non-empty token, and only with fault injection)");
            }
            if (leafWorkers < 0) {
                throw new IllegalArgumentException("leafWorkers: " + leafWorkers + " (expected: >= 1, or 0 for the default)");
            }
            Objects.requireNonNull(hedge, "hedge");
            Objects.requireNonNull(tail, "tail");
            Objects.requireNonNull(indexDir, "indexDir");
            Objects.requireNonNull(runDirectory, "runDirectory");
            Objects.requireNonNull(launcher, "launcher");
            Objects.requireNonNull(leafWarmup, "leafWarmup");
            if (leaves < 1) {
                throw new IllegalArgumentException("leaves: " + leaves + " (expected: >= 1)");
            }
        }

        /** Without a query of death. */
        public Options(Path indexDir, int leaves, int replicas, String host, int httpPort, RunDirectory runDirectory,
                JavaLauncher launcher, Duration startTimeout, boolean faultInjection, Duration leafWarmup,
                HedgeSettings hedge, TailSettings tail, int leafWorkers) {
            this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                    leafWarmup, hedge, tail, leafWorkers, null, List.of());
        }

        /** With the default admission control and a generated admin token. */
        public Options(Path indexDir, int leaves, int replicas, String host, int httpPort, RunDirectory runDirectory,
                JavaLauncher launcher, Duration startTimeout, boolean faultInjection, Duration leafWarmup,
                HedgeSettings hedge, TailSettings tail, int leafWorkers, String queryOfDeath, List<String> leafArguments) {
            this(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, faultInjection,
                    leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, AdmissionSettings.defaults(), null);
        }

        public Options withAdmission(AdmissionSettings value) {
            return new Options(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                    faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, value, adminToken);
        }

        /** The admin token to require; null for a new random one. */
        public Options withAdminToken(String value) {
            return new Options(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                    faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, value);
        }

        public Options withFaultInjection(boolean enabled) {
            return new Options(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout, enabled,
                    leafWarmup, hedge, tail, leafWorkers, queryOfDeath, leafArguments, admission, adminToken);
        }

        /** Leaves that halt on a query holding {@code token} (null: none); needs fault injection. */
        public Options withQueryOfDeath(String token) {
            return new Options(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                    faultInjection, leafWarmup, hedge, tail, leafWorkers, token, leafArguments, admission, adminToken);
        }

        /** Leaves started with these extra command-line arguments (e.g. {@code --slice=0s}). */
        public Options withLeafArguments(List<String> arguments) {
            return new Options(indexDir, leaves, replicas, host, httpPort, runDirectory, launcher, startTimeout,
                    faultInjection, leafWarmup, hedge, tail, leafWorkers, queryOfDeath, arguments, admission, adminToken);
        }
    }

    /** Runs admin restarts, which wait for a JVM to start, off the event loops. */
    private static final java.util.concurrent.Executor ADMIN = runnable -> {
        Thread thread = new Thread(runnable, "local-admin");
        thread.setDaemon(true);
        thread.start();
    };

    private final Options options;
    private final IndexManifest manifest;
    private final List<LeafProcess> leaves;
    private final RootServer root;
    private boolean closed;

    private final String adminToken;

    private LocalCluster(Options options, IndexManifest manifest, List<LeafProcess> leaves, RootServer root,
            String adminToken) {
        this.adminToken = adminToken;
        this.options = options;
        this.manifest = manifest;
        this.leaves = leaves;
        this.root = root;
    }

    /** One leaf JVM and the port it listens on. */
    private record LeafProcess(int index, Process process, int port) {
    }

    /**
     * Starts the leaves, waits for each to listen, then starts the root and waits for it to
     * reach every leaf.
     *
     * @param progress where to report each step
     * @throws BindException when the HTTP port is taken
     * @throws IOException   when a leaf fails to start (with the tail of its log)
     */
    public static LocalCluster start(Options options, PrintStream progress) throws IOException, InterruptedException {
        IndexManifest manifest = new PartitionStore(options.indexDir()).readManifest();
        RunDirectory run = options.runDirectory();
        run.requireNoneRunning();
        requirePortFree(options.host(), options.httpPort());
        run.deletePidFiles();
        Files.createDirectories(run.dir());

        List<Process> started = new ArrayList<>();
        List<LeafProcess> leaves = new ArrayList<>();
        try {
            for (int i = 0; i < options.leaves(); i++) {
                started.add(spawnLeaf(options, i, 0));
            }
            for (int i = 0; i < options.leaves(); i++) {
                int port = awaitPort(options, i, started.get(i));
                leaves.add(new LeafProcess(i, started.get(i), port));
                progress.printf("  leaf %d: pid %d, %s:%d%n", i, started.get(i).pid(), options.host(), port);
            }
            run.writePid("root", ProcessHandle.current().pid());
            ClusterConfig config = ClusterConfig.of(manifest,
                    leaves.stream().map(l -> options.host() + ":" + l.port()).toList(), options.replicas())
                    .withHedge(options.hedge()).withTail(options.tail());
            AtomicReference<LocalCluster> self = new AtomicReference<>();
            String adminToken = options.adminToken() != null ? options.adminToken() : HttpSettings.newAdminToken();
            Path tokenFile = run.adminTokenFile();
            writeAdminToken(tokenFile, adminToken);
            HttpSettings http = HttpSettings.defaults(options.host(), options.httpPort())
                    .withAdmission(options.admission()).withAdminToken(adminToken);
            RootServer root = RootServer.start(config, http, options.startTimeout(),
                    leaf -> CompletableFuture.supplyAsync(() -> self.get().restartFromAdmin(leaf), ADMIN),
                    ClusterState.randomRootId());
            progress.printf("  root: pid %d, http://%s:%d/ (%d partitions x %d replicas over %d leaves)%n",
                    ProcessHandle.current().pid(), options.host(), root.httpPort(), manifest.partitions(),
                    options.replicas(), options.leaves());
            progress.printf("  admin token: %s (in %s; send it as 'Authorization: Bearer <token>')%n", adminToken,
                    tokenFile);
            progress.printf("  admission control: %s%n", options.admission().describe());
            LocalCluster cluster = new LocalCluster(options, manifest, leaves, root, adminToken);
            self.set(cluster);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            started.forEach(LocalCluster::stopProcess);
            run.deletePidFiles();
            throw e;
        }
    }

    /** The token the root's admin routes require. */
    public String adminToken() {
        return adminToken;
    }

    /** Writes the token readable by its owner only, where the load generator's fault runner reads it. */
    private static void writeAdminToken(Path file, String token) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.writeString(file, token + "\n");
    }

    private static void requirePortFree(String host, int port) throws BindException {
        if (port == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new BindException("port " + port + " on " + host + " is already in use (choose another with --port)");
        }
    }

    private static Process spawnLeaf(Options options, int leaf, int port) throws IOException {
        RunDirectory run = options.runDirectory();
        String name = "leaf-" + leaf;
        Files.deleteIfExists(run.portFile(name));
        List<String> arguments = new ArrayList<>(List.of("leaf",
                "--index", options.indexDir().toString(),
                "--host", options.host(),
                "--port", Integer.toString(port),
                "--port-file", run.portFile(name).toString(),
                "--exit-with-parent",
                "--warmup", options.leafWarmup().toMillis() + "ms"));
        if (options.leafWorkers() > 0) {
            arguments.add("--workers");
            arguments.add(Integer.toString(options.leafWorkers()));
        }
        if (options.faultInjection()) {
            arguments.add("--fault-injection");
        }
        if (options.queryOfDeath() != null) {
            arguments.add("--query-of-death");
            arguments.add(options.queryOfDeath());
        }
        arguments.addAll(options.leafArguments());
        List<String> command = options.launcher().command(arguments);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(run.logFile(name).toFile()))
                .start();
        run.writePid(name, process.pid());
        return process;
    }

    private static int awaitPort(Options options, int leaf, Process process) throws IOException, InterruptedException {
        RunDirectory run = options.runDirectory();
        Path portFile = run.portFile("leaf-" + leaf);
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (!Files.exists(portFile)) {
            if (!process.isAlive()) {
                throw new IOException("leaf " + leaf + " exited with status " + process.exitValue()
                        + " while starting; its log " + run.logFile("leaf-" + leaf) + " ends with:\n" + tail(run.logFile("leaf-" + leaf)));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("leaf " + leaf + " did not start listening within "
                        + options.startTimeout().toSeconds() + " s; see " + run.logFile("leaf-" + leaf));
            }
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    public HedgerowClient client() {
        return root.client();
    }

    public RootServer root() {
        return root;
    }

    public int httpPort() {
        return root.httpPort();
    }

    public IndexManifest manifest() {
        return manifest;
    }

    public int leafCount() {
        return leaves.size();
    }

    /** The leaf's process, e.g. to pause it with SIGSTOP in a fault scenario. */
    public ProcessHandle leafProcess(int leaf) {
        return leaves.get(leaf).process().toHandle();
    }

    /** Kills a leaf abruptly (SIGKILL), as a crash would, and waits until it is gone. */
    public void killLeaf(int leaf) throws InterruptedException {
        Process process = leaves.get(leaf).process();
        process.destroyForcibly();
        process.waitFor();
    }

    /** Starts a killed leaf again on its old port; the root reconnects to it by itself. */
    public synchronized void restartLeaf(int leaf) throws IOException, InterruptedException {
        LeafProcess old = leaves.get(leaf);
        if (old.process().isAlive()) {
            throw new IllegalStateException("leaf " + leaf + " is still running (pid " + old.process().pid() + ")");
        }
        Process process = spawnLeaf(options, leaf, old.port());
        awaitPort(options, leaf, process);
        leaves.set(leaf, new LeafProcess(leaf, process, old.port()));
    }

    /** Stops the root, then every leaf process. Idempotent. */
    private String restartFromAdmin(int leaf) {
        if (leaf < 0 || leaf >= leaves.size()) {
            throw new IllegalArgumentException("leaf " + leaf + " (expected: 0.." + (leaves.size() - 1) + ")");
        }
        try {
            restartLeaf(leaf);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting leaf " + leaf, e);
        }
        return "leaf " + leaf + " restarted as pid " + leaves.get(leaf).process().pid();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        root.close();
        leaves.forEach(leaf -> stopProcess(leaf.process()));
        try {
            options.runDirectory().deletePidFiles();
        } catch (IOException e) {
            System.getLogger(LocalCluster.class.getName())
                    .log(System.Logger.Level.WARNING, "could not delete pid files in " + options.runDirectory().dir(), e);
        }
    }

    private static void stopProcess(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
