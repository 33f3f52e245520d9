package io.hedgerow.root.local;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.cluster.LeafStatus;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The process supervisor of a local cluster: a leaf process that exits without being asked to (a
 * crash, a query of death's halt, an OutOfMemoryError, a SIGKILL) is started again on its port
 * after the wait its {@link RestartPolicy} decides, and one that keeps dying is reported as a crash
 * loop, in the log and in {@code /cluster} (each leaf's {@code process} field), and restarted more
 * slowly. Exits the cluster asked for (a stop, a rolling restart) are announced with
 * {@link #expectExit} and left alone.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Every decision and every restart runs on the
 * supervisor's one thread, so the policies need no locks and restarts of several leaves happen one
 * after another. A restart that fails (the JVM exits while starting) counts as another death.
 */
final class LeafSupervisor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafSupervisor.class.getName());

    /** Starts a leaf again in place of its dead process. */
    @FunctionalInterface
    interface Restarter {
        /**
         * @return the new process, or null when {@code dead} is no longer the leaf's process (someone
         *         restarted it meanwhile)
         */
        Process restart(int leaf, Process dead) throws IOException, InterruptedException;
    }

    private final RestartPolicy[] policies;
    private final RestartPolicy.Settings settings;
    private final int[] restarts;
    private final Restarter restarter;
    private final IntFunction<LeafStatus> statuses;
    private final Ticker ticker;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leaf-supervisor");
        t.setDaemon(true);
        return t;
    });
    private final Set<Long> expected = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** @param statuses where each leaf's state is reported, by leaf number (the root's view, shown in /cluster) */
    LeafSupervisor(int leaves, RestartPolicy.Settings settings, Restarter restarter, IntFunction<LeafStatus> statuses,
            Ticker ticker) {
        this.settings = settings;
        this.policies = new RestartPolicy[leaves];
        for (int i = 0; i < leaves; i++) {
            policies[i] = new RestartPolicy(settings);
        }
        this.restarts = new int[leaves];
        this.restarter = restarter;
        this.statuses = statuses;
        this.ticker = ticker;
    }

    /** Starts watching the leaf's processes. */
    void watchAll(List<Process> processes) {
        for (int leaf = 0; leaf < processes.size(); leaf++) {
            watch(leaf, processes.get(leaf));
        }
    }

    /** Watches {@code process}, leaf {@code leaf}'s current process, for an exit nobody asked for. */
    void watch(int leaf, Process process) {
        thread.execute(() -> report(leaf, null));
        process.onExit().thenRun(() -> {
            if (!closed) {
                thread.execute(() -> exited(leaf, process));
            }
        });
    }

    /** The cluster is about to stop {@code process} itself: its exit is no death. */
    void expectExit(Process process) {
        expected.add(process.pid());
    }

    private void exited(int leaf, Process process) {
        if (closed || expected.remove(process.pid())) {
            return;
        }
        died(leaf, process, "pid " + process.pid() + " exited with status " + process.exitValue()
                + describeStatus(process.exitValue()));
    }

    private void died(int leaf, Process process, String how) {
        RestartPolicy.Decision decision = policies[leaf].died(ticker.nanoTime(), ThreadLocalRandom.current().nextDouble());
        long delayMillis = TimeUnit.NANOSECONDS.toMillis(decision.delayNanos());
        String detail = how + "; " + decision.deathsInWindow() + (decision.deathsInWindow() == 1 ? " death" : " deaths")
                + " in the last " + policyWindow() + (decision.crashLoop() ? ": crash loop" : "")
                + "; restarting in " + delayMillis + " ms";
        LOG.log(System.Logger.Level.WARNING, "leaf {0} died: {1}", leaf, detail);
        statuses.apply(leaf).supervision(new LeafStatus.Supervision(decision.crashLoop() ? "crash_loop" : "restarting",
                restarts[leaf], detail));
        thread.schedule(() -> restart(leaf, process, detail), decision.delayNanos(), TimeUnit.NANOSECONDS);
    }

    private void restart(int leaf, Process dead, String lastDeath) {
        if (closed) {
            return;
        }
        Process started;
        try {
            started = restarter.restart(leaf, dead);
        } catch (IOException e) {
            died(leaf, dead, "its restart failed: " + e.getMessage().lines().findFirst().orElse(""));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (started == null) {
            return; // restarted by someone else, who watches the new process
        }
        restarts[leaf]++;
        LOG.log(System.Logger.Level.INFO, "leaf {0} restarted as pid {1} (restart {2})", leaf,
                String.valueOf(started.pid()), restarts[leaf]);
        report(leaf, lastDeath);
        watchOnly(leaf, started);
    }

    /** Watches a process this supervisor started (its state is reported already). */
    private void watchOnly(int leaf, Process process) {
        process.onExit().thenRun(() -> {
            if (!closed) {
                thread.execute(() -> exited(leaf, process));
            }
        });
    }

    private void report(int leaf, String lastDeath) {
        boolean looping = policies[leaf].crashLooping(ticker.nanoTime());
        LeafStatus status = statuses.apply(leaf);
        String detail = lastDeath != null ? "last death: " + lastDeath
                : status.supervision() != null ? status.supervision().detail() : null;
        status.supervision(new LeafStatus.Supervision(looping ? "crash_loop" : "running", restarts[leaf], detail));
    }

    private String policyWindow() {
        return io.hedgerow.common.time.Durations.format(settings.window());
    }

    /** What an exit status says of how the process ended (a JVM killed by signal n exits with 128 + n). */
    static String describeStatus(int status) {
        return switch (status) {
            case 137 -> " (SIGKILL)";
            case 143 -> " (SIGTERM)";
            case 134 -> " (SIGABRT)";
            case 70 -> " (a query of death)";
            case 3 -> " (an OutOfMemoryError)";
            default -> "";
        };
    }

    /** Restarts of leaf {@code leaf} after deaths so far. */
    int restarts(int leaf) {
        try {
            return thread.submit(() -> restarts[leaf]).get();
        } catch (Exception e) {
            return restarts[leaf];
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
