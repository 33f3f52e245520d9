package io.hedgerow.root.local;

import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.coordination.CoordinationSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts one leaf JVM of a local cluster and waits for it to listen: its command line, its log
 * and pid files in the run directory, and the cluster secret's file (the secret itself never
 * appears on a command line, where {@code ps} shows it).
 *
 * @param options          the cluster's options
 * @param clusterSecretFile the file holding the cluster's shared secret
 * @param tls              the certificate and key every leaf serves TLS with; null: plaintext
 * @param coordination     the ZooKeeper every leaf registers in ({@code --zk}, {@code --zk-cluster}); null: none
 */
record LeafSpawner(LocalClusterOptions options, Path clusterSecretFile, TlsFiles tls,
        CoordinationSettings coordination) {

    /**
     * Search threads for each of {@code leaves} leaves on one machine of {@code cores} cores, when the
     * cluster's options leave it to the default: the cores shared out, at least one each. A leaf alone
     * takes one per core; four leaves on two cores one each, where one per core each (two workers, a
     * lane and an event loop per leaf) had their threads wait for a core 4-5 times longer than they
     * ran (issue 30).
     */
    static int workersPerLeaf(int cores, int leaves) {
        if (cores < 1 || leaves < 1) {
            throw new IllegalArgumentException("cores: " + cores + ", leaves: " + leaves + " (expected: both >= 1)");
        }
        return Math.max(1, cores / leaves);
    }

    /** Starts leaf {@code leaf} on {@code port} (0: a free one); it writes its port file once listening. */
    Process spawn(int leaf, int port) throws IOException {
        RunDirectory run = options.runDirectory();
        String name = name(leaf);
        Files.deleteIfExists(run.portFile(name));
        List<String> arguments = new ArrayList<>(List.of("leaf",
                "--index", options.indexDir().toString(),
                "--host", options.host(),
                "--port", Integer.toString(port),
                "--port-file", run.portFile(name).toString(),
                "--cluster-secret-file", clusterSecretFile.toString(),
                "--node-id", Integer.toString(leaf),
                "--exit-with-parent",
                "--warmup", options.leafWarmup().toMillis() + "ms"));
        arguments.add("--workers");
        arguments.add(Integer.toString(options.leafWorkers() > 0 ? options.leafWorkers()
                : workersPerLeaf(Runtime.getRuntime().availableProcessors(), options.leaves())));
        if (coordination != null) {
            arguments.addAll(List.of("--zk", coordination.connectString(), "--zk-cluster", coordination.cluster()));
        }
        if (options.faultInjection()) {
            arguments.add("--fault-injection");
        }
        if (options.queryOfDeath() != null) {
            arguments.add("--query-of-death");
            arguments.add(options.queryOfDeath());
        }
        if (options.coordination() != null) {
            // Terms exist only with a coordination store: each leaf logs the ones it is told of, for the
            // durability checker's split-terms check (loadgen durability reads <run dir>/terms/).
            arguments.addAll(List.of("--term-log", run.termLogFile(name).toString()));
        }
        if (tls != null) {
            arguments.addAll(List.of("--tls-cert", tls.certificateChain().toString(), "--tls-key",
                    tls.privateKey().toString()));
        }
        arguments.addAll(options.leafArguments());
        // A leaf out of memory exits (status 3) rather than limp on: the supervisor starts it afresh.
        List<String> command = options.launcher().command(List.of("-XX:+ExitOnOutOfMemoryError"), arguments);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(run.logFile(name).toFile()))
                .start();
        run.writePid(name, process.pid());
        return process;
    }

    /**
     * Waits until the leaf has written its port file.
     *
     * @return its port
     * @throws IOException when it exits first (with the end of its log) or does not listen in time
     */
    int awaitPort(int leaf, Process process) throws IOException, InterruptedException {
        RunDirectory run = options.runDirectory();
        Path portFile = run.portFile(name(leaf));
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (!Files.exists(portFile)) {
            if (!process.isAlive()) {
                throw new IOException("leaf " + leaf + " exited with status " + process.exitValue()
                        + " while starting; its log " + run.logFile(name(leaf)) + " ends with:\n" + tail(run.logFile(name(leaf))));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("leaf " + leaf + " did not start listening within "
                        + options.startTimeout().toSeconds() + " s; see " + run.logFile(name(leaf)));
            }
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    static String name(int leaf) {
        return "leaf-" + leaf;
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
