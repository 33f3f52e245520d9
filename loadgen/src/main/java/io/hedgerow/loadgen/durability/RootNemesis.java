package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.scenario.LeafProcesses;
import io.hedgerow.root.local.RunDirectory;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Kills the whole {@code ./hedgerow local} process with SIGKILL (its root, and with it every leaf
 * and its embedded ZooKeeper, if any, which exit with their parent: the crash of the machine the
 * cluster runs on), then starts it again
 * with the same command on the same index and run directory: a local cluster started afresh finds
 * its leaves' live copies by their names and replays their logs (docs/ingestion.md), and with
 * {@code --zk embedded} the stored primaries, terms and in-sync sets in {@code <run dir>/zk}. The restart
 * command is the caller's (the one that started the cluster); it must give fixed write and admin
 * tokens, or the writes after the restart are refused.
 *
 * <p>Only for a cluster in its own process: never for one embedded in the caller's JVM.
 */
public final class RootNemesis implements Nemesis {
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(30);

    private final RunDirectory run;
    private final String restartCommand;
    private final FinalReads readiness;
    private boolean down;

    /**
     * @param restartCommand a shell command ({@code bash -c}) that starts the cluster again and runs as long as it does
     *                       (it is not waited for); its output goes to {@code <run dir>/root-restarts.log}
     * @param readiness      waits for the restarted root's {@code /ready}
     */
    public RootNemesis(RunDirectory run, String restartCommand, FinalReads readiness) {
        if (restartCommand == null || restartCommand.isBlank()) {
            throw new IllegalArgumentException("restartCommand: '" + restartCommand + "' (expected: the command that starts"
                    + " the cluster)");
        }
        this.run = run;
        this.restartCommand = restartCommand;
        this.readiness = readiness;
    }

    @Override
    public String name() {
        return "root";
    }

    @Override
    public String strike(Random random) throws IOException {
        long rootPid = Long.parseLong(Files.readString(run.pidFile("root")).trim());
        List<Long> leaves = leafPids();
        Long zk = pid("zk");
        LeafProcesses.signal("KILL", rootPid);
        down = true;
        if (zk != null && ProcessHandle.of(zk).map(ProcessHandle::isAlive).orElse(false)) {
            // Killed as well, not left to exit with its parent: after a ZooKeeper nemesis started it
            // again it is this process's child, and would hold its port against the restarted cluster's.
            try {
                LeafProcesses.signal("KILL", zk);
            } catch (IOException e) {
                // it exited with the cluster meanwhile
            }
        }
        awaitExit(rootPid);
        for (long leaf : leaves) {
            awaitExit(leaf); // they exit with their parent
        }
        if (zk != null) {
            awaitExit(zk); // its data stays for the restart
        }
        return "kill the local cluster's process (pid " + rootPid + ") and with it leaves " + leaves
                + (zk == null ? "" : " and its ZooKeeper (pid " + zk + ")");
    }

    @Override
    public String heal() throws IOException {
        if (!down) {
            return "";
        }
        Path log = run.dir().resolve("root-restarts.log");
        new ProcessBuilder("bash", "-c", restartCommand).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).redirectInput(new File("/dev/null")).start();
        down = false;
        long startNanos = System.nanoTime();
        try {
            if (!readiness.awaitReady()) {
                throw new IOException("the restarted cluster was not ready in time (see " + log + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the restarted cluster", e);
        }
        return String.format(java.util.Locale.ROOT, "started the cluster again, ready after %.1fs",
                Duration.ofNanos(System.nanoTime() - startNanos).toMillis() / 1000.0);
    }

    private List<Long> leafPids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (int leaf = 0; Files.exists(run.pidFile("leaf-" + leaf)); leaf++) {
            try {
                pids.add(Long.parseLong(Files.readString(run.pidFile("leaf-" + leaf)).trim()));
            } catch (NumberFormatException e) {
                // a pid file being rewritten: that leaf is not waited for
            }
        }
        return pids;
    }

    /** The pid in {@code <name>.pid}, or null when there is no such file (or it is being rewritten). */
    private Long pid(String name) throws IOException {
        if (!Files.exists(run.pidFile(name))) {
            return null;
        }
        try {
            return Long.parseLong(Files.readString(run.pidFile(name)).trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static void awaitExit(long pid) throws IOException {
        if (!LeafProcesses.awaitExit(pid, EXIT_PATIENCE)) {
            throw new IOException("pid " + pid + " still running " + EXIT_PATIENCE.toSeconds() + "s after its cluster was killed");
        }
    }
}
