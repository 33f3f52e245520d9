package io.hedgerow.root.local;

import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The embedded ZooKeeper of a local cluster ({@code local --zk embedded}): {@code hedgerow zk} in a
 * JVM of its own, a child of {@code local} that exits with it ({@code --exit-with-parent}), so a
 * killed root or leaf never takes the cluster's state with it, and a {@code local} killed outright
 * leaves nothing running. Its data lives in {@code <run dir>/zk} and outlives every run: the next
 * {@code local} on the same run directory reads the stored primaries, terms and in-sync sets again.
 * Its pid, port and log are {@code zk.pid}, {@code zk.port} and {@code zk.log} in the run directory.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: {@link LocalCluster} starts it before the
 * leaves and stops it after them, from one thread.
 */
final class ZooKeeperProcess {
    static final String NAME = "zk";
    /** Its JVM: a few hundred znodes need little heap, and the serial collector no spare core. */
    private static final List<String> JVM_OPTIONS = List.of("-XX:+UseSerialGC", "-Xmx256m");

    private final Process process;
    private final RunDirectory run;
    private final String host;

    private ZooKeeperProcess(Process process, RunDirectory run, String host) {
        this.process = process;
        this.run = run;
        this.host = host;
    }

    /** Where its snapshots and transaction log live. */
    static Path dataDir(RunDirectory run) {
        return run.dir().resolve(NAME);
    }

    /** Throws when {@code host:port} is taken (0: any free port, never taken), saying what to do instead. */
    static void requirePortFree(String host, int port) throws BindException {
        if (port != 0 && !LocalCluster.portFree(host, port)) {
            throw new BindException("ZooKeeper's port " + port + " on " + host + " is already in use (expected: a free"
                    + " port: choose another with --zk-port, or use the ZooKeeper listening there with --zk " + host
                    + ":" + port + ")");
        }
    }

    /**
     * Starts the server's process on {@code host:port} (0: a free port); {@link #awaitPort} waits for
     * it, and reports the log's end if it could not listen (the port taken since {@link #requirePortFree}).
     */
    static ZooKeeperProcess spawn(JavaLauncher launcher, RunDirectory run, String host, int port) throws IOException {
        Files.createDirectories(dataDir(run));
        Files.deleteIfExists(run.portFile(NAME));
        // Without the leaves' extra flags: their AOT cache (or its recording) is a leaf's, not this JVM's.
        JavaLauncher zkJvm = new JavaLauncher(launcher.javaCommand(), launcher.classPath(), "256m", List.of(), JVM_OPTIONS);
        List<String> command = zkJvm.command(List.of("zk", "--host", host,
                "--port", Integer.toString(port), "--data-dir", dataDir(run).toAbsolutePath().toString(),
                "--port-file", run.portFile(NAME).toAbsolutePath().toString(), "--exit-with-parent"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(run.logFile(NAME).toFile())).start();
        run.writePid(NAME, process.pid());
        return new ZooKeeperProcess(process, run, host);
    }

    /**
     * Waits until the server listens.
     *
     * @return its {@code host:port}, for the root's {@code --zk}
     * @throws IOException when it exits first (with the end of its log) or does not listen within {@code timeout}
     */
    String awaitPort(Duration timeout) throws IOException, InterruptedException {
        Path portFile = run.portFile(NAME);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(portFile)) {
            if (!process.isAlive()) {
                throw new IOException("ZooKeeper exited with status " + process.exitValue() + " while starting; its log "
                        + run.logFile(NAME) + " ends with:\n" + LeafSpawner.tail(run.logFile(NAME)));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("ZooKeeper did not start listening within " + timeout.toSeconds() + " s; see "
                        + run.logFile(NAME));
            }
            Thread.sleep(20);
        }
        return host + ":" + Integer.parseInt(Files.readString(portFile).trim());
    }

    long pid() {
        return process.pid();
    }

    /** SIGTERM (it closes its files), then SIGKILL if it has not exited within 10 s. */
    void stop() {
        LocalCluster.stopProcess(process);
    }
}
