package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.scenario.LeafProcesses;
import io.hedgerow.root.local.RunDirectory;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Kills (SIGKILL) or pauses (SIGSTOP) the embedded ZooKeeper of a local cluster
 * ({@code ./hedgerow local --zk embedded}: {@code hedgerow zk}, its pid in {@code <run dir>/zk.pid}),
 * where the root keeps each partition's primary, term and in-sync set. Heal resumes a paused one
 * (SIGCONT) or starts a killed one again with the command line it ran (read from
 * {@code /proc/<pid>/cmdline} before the kill, so on the same port and data directory, and in its
 * named network namespace if it ran in one: {@link NetworkNamespaces}) and waits for
 * it to listen. While it is down the root must refuse every write whose safety needs a store update
 * (a replica leaving the in-sync set, a promotion) rather than acknowledge it unsafely; the checker
 * finds out whether it did. Writes that need none (every in-sync copy answers) may go on. So that
 * some do need one, half the strikes (chosen by the seed) also kill or pause one leaf while
 * ZooKeeper is down, through the {@link LeafNemesis} given; heal mends ZooKeeper first, then the
 * leaf. Never more than one leaf: the partition keeps a copy, which is what makes it a durability
 * test, not an availability one ({@link NemesisLoop}).
 *
 * <p>The restarted server is this process's child ({@code --exit-with-parent} then watches this
 * JVM, so it never outlives the run), no longer the cluster's: {@link RootNemesis} kills it with the
 * cluster, and {@code local stop} by its pid file. Linux only ({@code /proc}).
 */
public final class ZooKeeperNemesis implements Nemesis {
    static final String NAME = "zk";
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(10);
    private static final Duration START_PATIENCE = Duration.ofSeconds(60);

    private final RunDirectory run;
    private final Nemesis leaves;
    private Long paused;
    private Started killed;

    /** What a killed server ran: its command line and working directory. */
    private record Started(long pid, List<String> command, Path directory) {
    }

    /** @param leaves strikes one leaf while ZooKeeper is down (half the time); null: never */
    public ZooKeeperNemesis(RunDirectory run, Nemesis leaves) {
        this.run = run;
        this.leaves = leaves;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String strike(Random random) throws IOException {
        String done = strikeZooKeeper(random);
        if (leaves == null || !random.nextBoolean()) {
            return done;
        }
        try {
            return done + "; while it is down, " + leaves.strike(random);
        } catch (IOException e) {
            return done + "; while it is down, no leaf fault (" + e.getMessage() + ")";
        }
    }

    private String strikeZooKeeper(Random random) throws IOException {
        long pid = pid();
        if (random.nextBoolean()) {
            // In its network namespace, when it runs in another one (durability.sh --netns: the root's host).
            List<String> command = new ArrayList<>(NetworkNamespaces.enterPrefix(pid));
            command.addAll(commandLine(pid));
            Started started = new Started(pid, command, Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")));
            LeafProcesses.signal("KILL", pid);
            killed = started;
            if (!LeafProcesses.awaitExit(pid, EXIT_PATIENCE)) {
                throw new IOException("ZooKeeper (pid " + pid + ") still running " + EXIT_PATIENCE.toSeconds()
                        + "s after SIGKILL");
            }
            return "kill ZooKeeper (pid " + pid + ")";
        }
        LeafProcesses.signal("STOP", pid);
        paused = pid;
        return "pause ZooKeeper (pid " + pid + ")";
    }

    @Override
    public String heal() throws IOException {
        String zk;
        try {
            zk = healZooKeeper();
        } catch (IOException | RuntimeException e) {
            if (leaves != null) {
                leaves.heal(); // the leaf is mended all the same
            }
            throw e;
        }
        String leaf = leaves == null ? "" : leaves.heal();
        return zk.isEmpty() || leaf.isEmpty() ? zk + leaf : zk + ", then " + leaf;
    }

    private String healZooKeeper() throws IOException {
        if (paused != null) {
            LeafProcesses.signal("CONT", paused);
            String done = "resume ZooKeeper (pid " + paused + ")";
            paused = null;
            return done;
        }
        if (killed == null) {
            return "";
        }
        long startNanos = System.nanoTime();
        Files.deleteIfExists(run.portFile(NAME));
        Process process = new ProcessBuilder(killed.command()).directory(killed.directory().toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(run.logFile(NAME).toFile()))
                .redirectInput(new File("/dev/null")).start();
        run.writePid(NAME, process.pid());
        killed = null;
        long deadline = startNanos + START_PATIENCE.toNanos();
        try {
            while (!Files.exists(run.portFile(NAME))) {
                if (!process.isAlive()) {
                    throw new IOException("ZooKeeper started again exited with status " + process.exitValue() + " (see "
                            + run.logFile(NAME) + ")");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("ZooKeeper started again (pid " + process.pid() + ") did not listen within "
                            + START_PATIENCE.toSeconds() + " s (see " + run.logFile(NAME) + ")");
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for ZooKeeper to listen", e);
        }
        return String.format(Locale.ROOT, "start ZooKeeper again (pid %d), listening after %.1fs", process.pid(),
                (System.nanoTime() - startNanos) / 1e9);
    }

    private long pid() throws IOException {
        Path file = run.pidFile(NAME);
        if (!Files.exists(file)) {
            throw new IOException("no " + file + " (expected: a cluster of './hedgerow local --zk embedded')");
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readString(file).trim());
        } catch (NumberFormatException e) {
            throw new IOException("unreadable pid file " + file);
        }
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IOException("ZooKeeper (pid " + pid + ", " + file + ") is not running");
        }
        return pid;
    }

    /** The process's arguments, as {@code /proc/<pid>/cmdline} holds them (NUL-separated). */
    static List<String> commandLine(long pid) throws IOException {
        byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        if (bytes.length == 0) {
            throw new IOException("pid " + pid + ": empty command line in /proc (expected: the java command of 'hedgerow zk')");
        }
        // Each argument ends with a NUL; split drops only the empty string after the last one.
        return List.of(new String(bytes, StandardCharsets.UTF_8).split("\0"));
    }
}
