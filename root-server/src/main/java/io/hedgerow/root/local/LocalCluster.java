package io.hedgerow.root.local;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.common.net.ClusterSecret;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.time.Durations;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.ServingLock;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.http.LeafAdmin;
import io.hedgerow.root.tail.TailSettings;
import io.hedgerow.root.write.WriteSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * process it started, and leaves also exit by themselves if this process dies. Leaves that die are
 * restarted by a {@link LeafSupervisor} (with {@link LocalClusterOptions#supervision}); {@link #rollingRestart}
 * restarts them all one at a time. While it runs, it holds the index's {@link ServingLock}, so no
 * other {@code local} or {@code demo} rebuilds or serves the index under it; its leaves and root
 * share a new cluster secret, in {@code <run dir>/cluster-secret}. Its root requires an admin token
 * and a write token (given, or generated and written to {@code <run dir>/admin-token} and
 * {@code write-token}). Each leaf is started under its number ({@code --node-id}), so a later
 * cluster on the same index serves the writes this one took.
 *
 * <p>With a coordination store ({@link LocalClusterOptions#coordination}), the root keeps each
 * partition's primary, term and in-sync set in ZooKeeper: an embedded one is started first, as a child
 * process of its own ({@link ZooKeeperProcess}), and stopped last; the leaves keep their ports from run
 * to run ({@link RunDirectory#leafPortsFile}), since the stored in-sync sets name copies by address.
 */
public final class LocalCluster implements AutoCloseable {
    /** Runs admin restarts, which wait for a JVM to start, off the event loops. */
    private static final java.util.concurrent.Executor ADMIN = runnable -> {
        Thread thread = new Thread(runnable, "local-admin");
        thread.setDaemon(true);
        thread.start();
    };

    private final LocalClusterOptions options;
    private final IndexManifest manifest;
    private final LeafSpawner spawner;
    private final List<LeafProcess> leaves;
    private final RootServer root;
    private final String adminToken;
    private final String writeToken;
    private final ServingLock servingLock;
    private final LeafSupervisor supervisor;
    /** The embedded ZooKeeper's process; null without one. */
    private final ZooKeeperProcess zk;
    /** Leaves the supervisor brought back since an admin restart last asked about them. */
    private final java.util.Set<Integer> supervisorRestarted = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicBoolean rolling = new java.util.concurrent.atomic.AtomicBoolean();
    private boolean closed;

    private LocalCluster(LocalClusterOptions options, IndexManifest manifest, LeafSpawner spawner, List<LeafProcess> leaves,
            RootServer root, String adminToken, String writeToken, ServingLock servingLock, ZooKeeperProcess zk) {
        this.options = options;
        this.manifest = manifest;
        this.spawner = spawner;
        this.leaves = leaves;
        this.root = root;
        this.adminToken = adminToken;
        this.writeToken = writeToken;
        this.servingLock = servingLock;
        this.zk = zk;
        this.supervisor = options.supervision() == null ? null : new LeafSupervisor(leaves.size(), options.supervision(),
                this::restartDead, leaf -> root.cluster().leaf(leaf), Ticker.system());
        if (supervisor != null) {
            supervisor.watchAll(leaves.stream().map(LeafProcess::process).toList());
        }
    }

    /** One leaf JVM and the port it listens on. */
    private record LeafProcess(int index, Process process, int port) {
    }

    /**
     * Starts the leaves, waits for each to listen, then starts the root and waits for it to
     * reach every leaf.
     *
     * @param progress where to report each step
     * @throws BindException when the HTTP port is taken, or the embedded ZooKeeper's
     * @throws IOException   when a leaf fails to start (with the tail of its log), or another cluster
     *                       serves the index
     */
    public static LocalCluster start(LocalClusterOptions options, PrintStream progress) throws IOException, InterruptedException {
        IndexManifest manifest = new PartitionStore(options.indexDir()).readManifest();
        RunDirectory run = options.runDirectory();
        run.requireNoneRunning();
        requirePortFree(options.host(), options.httpPort());
        LocalCoordination coordination = options.coordination();
        if (coordination != null && coordination.isEmbedded()) {
            ZooKeeperProcess.requirePortFree(options.host(), coordination.embeddedPort());
        }
        ServingLock servingLock = ServingLock.acquire(options.indexDir(), "pid " + ProcessHandle.current().pid()
                + ", run dir " + run.dir().toAbsolutePath() + ", http " + options.host() + ":" + options.httpPort());
        run.deletePidFiles();
        Files.createDirectories(run.dir());
        // The leaves and the root share it; the leaves read it from a file only their owner can read.
        String clusterSecret = ClusterSecret.generate();
        Path secretFile = run.dir().resolve(ClusterSecret.FILE_NAME);
        ClusterSecret.write(secretFile, clusterSecret);
        TlsFiles tls = options.tls() ? SelfSignedTls.generate(run.dir().toAbsolutePath()) : null;
        List<Process> started = new ArrayList<>();
        List<LeafProcess> leaves = new ArrayList<>();
        ZooKeeperProcess zk = null;
        LeafSpawner spawner = null;
        try {
            String zkAddress = null;
            if (coordination != null && coordination.isEmbedded()) {
                // Before the leaves: each is told where to register (--zk), which needs the port.
                long zkStartNanos = System.nanoTime();
                zk = ZooKeeperProcess.spawn(options.launcher(), run, options.host(), zkPort(coordination, run,
                        options.host()));
                zkAddress = zk.awaitPort(options.startTimeout());
                if (coordination.embeddedPort() == 0) {
                    run.keepZooKeeperPort(Integer.parseInt(zkAddress.substring(zkAddress.lastIndexOf(':') + 1)));
                }
                progress.printf("  zk: started in %.1f s, pid %d, %s, data in %s (each partition's primary, term and"
                        + " in-sync set; the leaves' membership)%n", (System.nanoTime() - zkStartNanos) / 1e9,
                        zk.pid(), zkAddress, ZooKeeperProcess.dataDir(run));
            } else if (coordination != null) {
                zkAddress = coordination.connectString();
            }
            spawner = new LeafSpawner(options, secretFile.toAbsolutePath(), tls,
                    coordination == null ? null : coordination.settings(zkAddress));
            java.util.Map<Integer, Integer> keptPorts = coordination == null ? java.util.Map.of() : run.keptLeafPorts();
            for (int i = 0; i < options.leaves(); i++) {
                started.add(spawner.spawn(i, keptPorts.getOrDefault(i, 0)));
            }
            java.util.Map<Integer, Integer> ports = new java.util.TreeMap<>();
            for (int i = 0; i < options.leaves(); i++) {
                int port = spawner.awaitPort(i, started.get(i));
                leaves.add(new LeafProcess(i, started.get(i), port));
                ports.put(i, port);
                progress.printf("  leaf %d: pid %d, %s:%d%n", i, started.get(i).pid(), options.host(), port);
            }
            if (coordination != null) {
                run.keepLeafPorts(ports);
            }
            run.writePid("root", ProcessHandle.current().pid());
            ClusterConfig config = ClusterConfig.of(manifest,
                    leaves.stream().map(l -> options.host() + ":" + l.port()).toList(), options.replicas())
                    .withHedge(options.hedge()).withTail(options.tail()).withClusterSecret(clusterSecret)
                    .withBatchAdmission(options.batchAdmission())
                    .withAdaptation(options.adaptation()).withPlacement(options.placement())
                    .withTlsTrust(tls == null ? null : tls.trustedCertificates())
                    .withLeafBatching(options.leafBatching());
            AtomicReference<LocalCluster> self = new AtomicReference<>();
            String adminToken = options.adminToken() != null ? options.adminToken() : HttpSettings.newAdminToken();
            Path tokenFile = run.adminTokenFile();
            writeToken(tokenFile, adminToken);
            String writeToken = options.writeToken() != null ? options.writeToken() : HttpSettings.newAdminToken();
            Path writeTokenFile = run.writeTokenFile();
            writeToken(writeTokenFile, writeToken);
            HttpSettings http = HttpSettings.defaults(options.host(), options.httpPort())
                    .withAdmission(options.admission()).withAdminToken(adminToken).withWriteToken(writeToken);
            WriteSettings writes = WriteSettings.defaults()
                    .withCoordination(coordination == null ? null : coordination.settings(zkAddress));
            RootServer root = RootServer.start(config, http, options.startTimeout(), new LeafAdmin() {
                @Override
                public CompletableFuture<String> restartLeaf(int leaf) {
                    return CompletableFuture.supplyAsync(() -> self.get().restartFromAdmin(leaf), ADMIN);
                }

                @Override
                public CompletableFuture<String> restartAllRolling() {
                    return CompletableFuture.supplyAsync(() -> self.get().rollingRestartFromAdmin(), ADMIN);
                }
            }, ClusterState.randomRootId(), writes);
            Files.writeString(run.portFile("root"), root.httpPort() + "\n");
            progress.printf("  root: pid %d, http://%s:%d/ (%d partitions x %d replicas over %d leaves)%n",
                    ProcessHandle.current().pid(), options.host(), root.httpPort(), manifest.partitions(),
                    options.replicas(), options.leaves());
            progress.printf("  admin token: %s (in %s; send it as 'Authorization: Bearer <token>')%n", adminToken,
                    tokenFile);
            progress.printf("  write token: %s (in %s; POST, PUT and DELETE on /documents send it as"
                    + " 'Authorization: Bearer <token>')%n", writeToken, writeTokenFile);
            progress.printf("  admission control: %s%n", options.admission().describe());
            if (coordination != null) {
                progress.printf("  partition state: in %s (leaves keep their ports in %s)%n", coordination.describe(),
                        run.leafPortsFile());
            }
            progress.printf("  leaves: cluster secret in %s; %s%n", secretFile, options.supervision() == null
                    ? "not restarted when they die" : "restarted when they die (crash loop: "
                    + options.supervision().crashLoopDeaths() + " deaths in " + Durations.format(options.supervision().window()) + ")");
            if (tls != null) {
                progress.printf("  links: TLS between root and leaves and between leaves, with a self-signed certificate"
                        + " made for this run (%s)%n", tls.certificateChain());
            }
            LocalCluster cluster = new LocalCluster(options, manifest, spawner, leaves, root, adminToken, writeToken,
                    servingLock, zk);
            self.set(cluster);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            started.forEach(LocalCluster::stopProcess);
            if (zk != null) {
                zk.stop();
            }
            run.deletePidFiles();
            servingLock.close();
            throw e;
        }
    }

    /** The token the root's admin routes require. */
    public String adminToken() {
        return adminToken;
    }

    /** The token writes to {@code /documents} require. */
    public String writeToken() {
        return writeToken;
    }

    /** Writes a token readable by its owner only (the load generator's fault runner reads the admin token). */
    private static void writeToken(Path file, String token) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.writeString(file, token + "\n");
    }

    /**
     * The embedded ZooKeeper's port: the one asked for, or, asked for a free one, the port it had last
     * time on this run directory if that is still free (else 0, a new free one).
     */
    private static int zkPort(LocalCoordination coordination, RunDirectory run, String host) {
        if (coordination.embeddedPort() != 0) {
            return coordination.embeddedPort();
        }
        return run.keptZooKeeperPort().stream().filter(port -> portFree(host, port)).findFirst().orElse(0);
    }

    private static void requirePortFree(String host, int port) throws BindException {
        if (port != 0 && !portFree(host, port)) {
            throw new BindException("port " + port + " on " + host + " is already in use (choose another with --port)");
        }
    }

    /** Whether a server could listen on {@code host:port} now. */
    static boolean portFree(String host, int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(host, port));
            return true;
        } catch (IOException e) {
            return false;
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
    public synchronized ProcessHandle leafProcess(int leaf) {
        return leaves.get(leaf).process().toHandle();
    }

    /** Kills a leaf abruptly (SIGKILL), as a crash would, and waits until it is gone; a supervisor restarts it. */
    public void killLeaf(int leaf) throws InterruptedException {
        Process process;
        synchronized (this) {
            process = leaves.get(leaf).process();
        }
        process.destroyForcibly();
        process.waitFor();
    }

    /** Starts a killed leaf again on its old port; the root reconnects to it by itself. */
    public synchronized void restartLeaf(int leaf) throws IOException, InterruptedException {
        LeafProcess old = leaves.get(leaf);
        if (old.process().isAlive()) {
            throw new IllegalStateException("leaf " + leaf + " is still running (pid " + old.process().pid() + ")");
        }
        startAgain(leaf);
    }

    /** For the supervisor: starts the leaf again if {@code dead} is still its process. */
    private synchronized Process restartDead(int leaf, Process dead) throws IOException, InterruptedException {
        if (closed || leaves.get(leaf).process() != dead) {
            return null;
        }
        Process started = startAgain(leaf);
        supervisorRestarted.add(leaf);
        return started;
    }

    private synchronized Process startAgain(int leaf) throws IOException, InterruptedException {
        LeafProcess old = leaves.get(leaf);
        Process process = spawner.spawn(leaf, old.port());
        spawner.awaitPort(leaf, process);
        leaves.set(leaf, new LeafProcess(leaf, process, old.port()));
        return process;
    }

    private String restartFromAdmin(int leaf) {
        if (leaf < 0 || leaf >= leaves.size()) {
            throw new IllegalArgumentException("leaf " + leaf + " (expected: 0.." + (leaves.size() - 1) + ")");
        }
        try {
            synchronized (this) {
                // The supervisor got there first (a fault scenario kills, then asks for the restart).
                if (supervisorRestarted.remove(leaf) && leaves.get(leaf).process().isAlive()) {
                    return "leaf " + leaf + " restarted as pid " + leaves.get(leaf).process().pid()
                            + " (by the supervisor, after it died)";
                }
                restartLeaf(leaf);
                if (supervisor != null) {
                    supervisor.watch(leaf, leaves.get(leaf).process());
                }
                return "leaf " + leaf + " restarted as pid " + leaves.get(leaf).process().pid();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting leaf " + leaf, e);
        }
    }

    /**
     * Restarts every leaf one at a time ({@link RollingRestart}), each drained first and ready again
     * before the next; blocks until done.
     *
     * @return what was done, leaf by leaf
     * @throws IllegalStateException when a rolling restart is already running
     */
    public String rollingRestart() throws IOException, InterruptedException {
        if (!rolling.compareAndSet(false, true)) {
            throw new IllegalStateException("a rolling restart is already running");
        }
        try {
            return new RollingRestart(new RollingRestart.Leaves() {
                @Override
                public int count() {
                    return leaves.size();
                }

                @Override
                public long stop(int leaf) throws InterruptedException {
                    Process process = currentProcess(leaf);
                    if (supervisor != null) {
                        supervisor.expectExit(process);
                    }
                    stopProcess(process);
                    return process.pid();
                }

                @Override
                public long start(int leaf) throws IOException, InterruptedException {
                    Process process = startAgain(leaf);
                    if (supervisor != null) {
                        supervisor.watch(leaf, process);
                    }
                    return process.pid();
                }
            }, this::servesWarm, options.startTimeout()).run();
        } finally {
            rolling.set(false);
        }
    }

    /** Whether the root has every connection to the leaf ready and the leaf is out of slow start. */
    private boolean servesWarm(int leaf) {
        return root.cluster().leaf(leaf).state() == LeafStatus.State.UP
                && root.cluster().slowStart().share(leaf, root.cluster().nanoTime()) >= 1;
    }

    private synchronized Process currentProcess(int leaf) {
        return leaves.get(leaf).process();
    }

    private String rollingRestartFromAdmin() {
        try {
            return rollingRestart();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during the rolling restart", e);
        }
    }

    /** Stops the root (it drains), then every leaf process, then the embedded ZooKeeper. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (supervisor != null) {
            supervisor.close();
        }
        root.close();
        List<Process> processes;
        synchronized (this) {
            processes = leaves.stream().map(LeafProcess::process).toList();
        }
        processes.forEach(LocalCluster::stopProcess);
        if (zk != null) {
            zk.stop(); // last: the root's last compare-and-set changes were made before it closed
        }
        try {
            options.runDirectory().deletePidFiles();
            servingLock.close();
        } catch (IOException e) {
            System.getLogger(LocalCluster.class.getName())
                    .log(System.Logger.Level.WARNING, "could not clean up " + options.runDirectory().dir(), e);
        }
    }

    /** SIGTERM (a leaf drains, ZooKeeper closes its files), then SIGKILL if it has not exited within 10 s. */
    static void stopProcess(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
