package io.hedgerow.cli;

import io.hedgerow.root.local.LocalCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code hedgerow local}: a root and N leaf processes on this machine, in the foreground. */
@Command(name = "local", mixinStandardHelpOptions = true,
        description = {"Run a whole cluster on this machine: each leaf in its own JVM process, the root in this one.",
                "Serves Europarl (indexed first if missing) unless --index names another index.",
                "Runs in the foreground until Ctrl-C; 'hedgerow local stop' stops a cluster started elsewhere,",
                "'hedgerow local restart --rolling' restarts its leaves one at a time."},
        subcommands = {LocalCommand.Stop.class, LocalRestartCommand.class})
final class LocalCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        try {
            Path index = cluster.resolveIndex(out);
            out.println("Starting " + cluster.leaves + " leaf processes and the root"
                    + (cluster.faultInjection ? " (leaves with fault injection enabled)" : "") + "...");
            LocalCluster local = LocalCluster.start(cluster.toOptions(index, spec), out);
            CountDownLatch stopped = Shutdown.closeOnExit(local, () -> local.root().stopReport());
            out.println("  root: " + local.root().warmUp(cluster.rootWarmup));
            out.printf("Serving on http://%s:%d/  (pid files in %s; Ctrl-C or './hedgerow local stop' to stop)%n",
                    cluster.host, local.httpPort(), cluster.runDirectory().dir());
            out.println(writeExample("http://" + cluster.host + ":" + local.httpPort(), cluster.runDirectory()));
            stopped.await();
            return 0;
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }

    /** A write with the run's write token, to copy and paste. */
    static String writeExample(String base, io.hedgerow.root.local.RunDirectory run) {
        return "Write: curl -X PUT '" + base + "/documents/note-1?refresh=wait_for' -H \"Authorization: Bearer $(cat "
                + run.writeTokenFile() + ")\" -H 'Content-Type: application/json' -d '{\"title\": \"Hedgerow notes\", \"body\": \"Live ingestion"
                + " reached the hawthorn hedges.\"}'";
    }

    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop a local cluster started from another terminal (found by its pid files).")
    static final class Stop implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Option(names = "--data", paramLabel = "DIR", defaultValue = "${env:HEDGEROW_DATA:-data}",
                description = "Data folder of the cluster (default: ${DEFAULT-VALUE}).")
        private Path dataDir;

        @Option(names = "--run-dir", paramLabel = "DIR", description = "Its pid-file folder (default: <data>/run).")
        private Path runDir;

        @Override
        public Integer call() throws IOException {
            var run = new io.hedgerow.root.local.RunDirectory(runDir != null ? runDir : dataDir.resolve("run"));
            int stopped = run.stopAll(5000);
            spec.commandLine().getOut().println(stopped == 0
                    ? "No local cluster is running (no live pid files in " + run.dir() + ")."
                    : "Stopped " + stopped + " process" + (stopped == 1 ? "" : "es") + ".");
            return 0;
        }
    }
}
