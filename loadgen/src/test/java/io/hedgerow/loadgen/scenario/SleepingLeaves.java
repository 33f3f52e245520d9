package io.hedgerow.loadgen.scenario;

import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Real child processes standing in for the leaves of a {@code ./hedgerow local} cluster: each leaf
 * is a {@code sleep 600} whose pid is written into a {@link RunDirectory} as {@code leaf-N}, as the
 * cluster writes its leaves' pids, so faults signal real processes. {@link #restart(int)} does what
 * the root's {@code POST /admin/leaves/{n}/restart} does: refuses while the old process runs, else
 * starts a new one and rewrites the pid file. {@link #close()} kills every process it started.
 *
 * <p>Linux only: states come from {@code /proc/<pid>/stat}.
 */
final class SleepingLeaves implements AutoCloseable {
    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RunDirectory run;
    private final List<String> command;
    private final Map<Integer, Process> current = new ConcurrentHashMap<>();
    private final List<Process> started = new ArrayList<>();

    /** {@code leaves} processes running {@code sleep 600}. */
    static SleepingLeaves start(RunDirectory run, int leaves) throws IOException {
        return start(run, leaves, List.of("sleep", "600"));
    }

    /** {@code leaves} processes running {@code command}, which must exec {@code sleep} (see {@link #awaitSleeping}). */
    static SleepingLeaves start(RunDirectory run, int leaves, List<String> command) throws IOException {
        SleepingLeaves processes = new SleepingLeaves(run, command);
        for (int leaf = 0; leaf < leaves; leaf++) {
            processes.spawn(leaf);
        }
        return processes;
    }

    private SleepingLeaves(RunDirectory run, List<String> command) {
        this.run = run;
        this.command = List.copyOf(command);
    }

    private synchronized Process spawn(int leaf) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(process);
        awaitSleeping(process);
        current.put(leaf, process);
        run.writePid("leaf-" + leaf, process.pid());
        return process;
    }

    /**
     * Waits until the process runs {@code sleep} itself: a shell that sets a signal's handling
     * before it execs {@code sleep} must have done so before a test signals it.
     */
    private static void awaitSleeping(Process process) {
        Path comm = Path.of("/proc", Long.toString(process.pid()), "comm");
        await(() -> {
            try {
                return Files.readString(comm).strip().equals("sleep");
            } catch (IOException e) {
                return false;
            }
        }, "pid " + process.pid() + " to exec sleep");
    }

    /** As the root's restart: refuses (IllegalStateException) while the leaf runs, else starts it again. */
    String restart(int leaf) {
        Process old = current.get(leaf);
        if (old.isAlive()) {
            throw new IllegalStateException("leaf " + leaf + " is still running (pid " + old.pid() + ")");
        }
        try {
            return "leaf " + leaf + " restarted as pid " + spawn(leaf).pid();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The leaf's process now (after a restart, the new one). */
    Process process(int leaf) {
        return current.get(leaf);
    }

    /** The state letter of {@code /proc/<pid>/stat}: {@code S} sleeping, {@code T} stopped, {@code Z} zombie. */
    static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException e) {
            return '-'; // gone
        }
    }

    char state(int leaf) {
        return state(process(leaf).pid());
    }

    /**
     * Waits for a condition that only polling can see (a process's state in /proc), a millisecond
     * apart; fails the test after {@link #PATIENCE}.
     */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + PATIENCE.toSeconds() + " s for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Override
    public synchronized void close() {
        for (Process process : started) {
            // SIGKILL also ends a stopped process.
            process.destroyForcibly();
        }
        for (Process process : started) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
