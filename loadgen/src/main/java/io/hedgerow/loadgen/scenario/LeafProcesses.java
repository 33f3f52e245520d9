package io.hedgerow.loadgen.scenario;

import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The leaf processes of a cluster started by {@code ./hedgerow local}, found through the pid files
 * of its run directory ({@code leaf-N.pid}, rewritten by the cluster whenever it restarts a leaf),
 * and the signals faults send them.
 */
public final class LeafProcesses {
    /** How long a leaf may take to go after SIGKILL before a stop gives up waiting. */
    private static final Duration AFTER_KILL = Duration.ofSeconds(5);

    private final RunDirectory run;

    public LeafProcesses(RunDirectory run) {
        this.run = run;
    }

    public RunDirectory run() {
        return run;
    }

    /**
     * The pid of the leaf's live process.
     *
     * @throws IOException with a short reason ({@code no pid file ...}, {@code leaf 1 (pid 42) is not
     *                     running}) that fault events and reports quote
     */
    public long pidOf(int leaf) throws IOException {
        try {
            long pid = Long.parseLong(Files.readString(run.pidFile("leaf-" + leaf)).trim());
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return pid;
            }
            throw new IOException("leaf " + leaf + " (pid " + pid + ") is not running");
        } catch (NoSuchFileException e) {
            throw new IOException("no pid file " + run.pidFile("leaf-" + leaf));
        } catch (NumberFormatException e) {
            throw new IOException("unreadable pid file " + run.pidFile("leaf-" + leaf));
        }
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}, {@code TERM}, {@code KILL}) with kill(1). */
    public static void signal(String signal, long pid) throws IOException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (kill.waitFor() != 0) {
                throw new IOException("kill -" + signal + " " + pid + " failed: "
                        + new String(kill.getInputStream().readAllBytes()).trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while signalling " + pid, e);
        }
    }

    /**
     * Stops a process the way a deploy does: SIGTERM, then SIGKILL if it is still running after
     * {@code grace}. Returns what happened, for the fault's event ({@code SIGTERM to pid 42, exited
     * after 0.3s}).
     *
     * @throws IOException when it cannot be signalled, or is still there after SIGKILL
     */
    String stop(long pid, Duration grace) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty()) {
            return "pid " + pid + " had already exited";
        }
        long startNanos = System.nanoTime();
        signal("TERM", pid);
        if (awaitExit(process.get(), grace)) {
            return "SIGTERM to pid " + pid + ", exited after " + seconds(System.nanoTime() - startNanos);
        }
        signal("KILL", pid);
        if (awaitExit(process.get(), AFTER_KILL)) {
            return "SIGTERM to pid " + pid + ", still running after " + seconds(grace.toNanos()) + ": SIGKILL";
        }
        throw new IOException("pid " + pid + " still running " + seconds(AFTER_KILL.toNanos()) + " after SIGKILL");
    }

    /**
     * Waits up to {@code patience} for {@code pid} to exit; true when it has (or was not running).
     *
     * @throws IOException when interrupted, or the wait itself fails
     */
    public static boolean awaitExit(long pid, Duration patience) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        return process.isEmpty() || awaitExit(process.get(), patience);
    }

    private static boolean awaitExit(ProcessHandle process, Duration patience) throws IOException {
        try {
            process.onExit().get(patience.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IOException("waiting for pid " + process.pid() + " to exit: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for pid " + process.pid() + " to exit", e);
        }
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1fs", nanos / 1e9);
    }
}
