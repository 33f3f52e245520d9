package io.hedgerow.loadgen.scenario;

import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import io.hedgerow.loadgen.scenario.FaultLog.Target;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Applies a phase's faults to the leaves of a cluster started by {@code ./hedgerow local}, found
 * through its pid files: pauses (SIGSTOP, then SIGCONT), kills (SIGKILL, then a restart through
 * the root's {@code /admin} endpoint), rolling restarts (SIGTERM, SIGKILL after a grace period, then
 * the same restart), and injected delays and stalls (through the root's
 * {@code /admin/leaves/{n}/delay} and {@code /admin/leaves/{n}/stall}, which the leaf applies
 * itself). A fault for {@code "all"} leaves goes to every leaf the root's {@code GET /cluster}
 * lists. Every fault is undone when the phase ends, when {@link #close()} runs, or when the JVM
 * exits (the caller registers {@link #close()} as a shutdown hook): no leaf is left frozen, dead,
 * slow or stalling. An injected fault is also bounded at the leaf, which drops it by itself when
 * the phase is due to end, so a generator that dies without running its hooks leaves no slow leaf
 * behind either.
 *
 * <p>Every action, applied, failed or undone, is recorded as a {@link FaultEvent}; {@link #endPhase()}
 * returns the phase's record, which also names the faults that never took effect (scheduled past
 * the phase's end, or every attempt failed), so a report never shows a "paused" phase that was not
 * paused. A failed action is also logged on a {@code fault:} line and the run goes on without it.
 *
 * <p><b>Assumptions and guarantees.</b> Fault actions run on one scheduler thread, one at a time: a
 * restart, which waits for a leaf to stop and a new JVM to listen, delays the faults due meanwhile.
 * {@link #endPhase()} and {@link #close()} may be called from any thread; the undo runs on the
 * scheduler thread after the action in progress.
 */
public final class FaultRunner implements AutoCloseable {
    /** Longest an undo may take: a rolling restart in progress (grace, then a JVM start), then the undo itself. */
    private static final Duration UNDO_PATIENCE = Duration.ofMinutes(4);

    private final LeafProcesses processes;
    private final RootAdmin admin;
    private final PrintStream log;
    private final Consumer<FaultEvent> listener;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "faults");
        thread.setDaemon(true);
        return thread;
    });
    private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
    /** Paused pids, with the pause fault that paused them. */
    private final Map<Long, Target> paused = new ConcurrentHashMap<>();
    /** Leaves down (killed, or stopped by a restart) until restarted, with the fault that took them down. */
    private final Map<Integer, Target> down = new ConcurrentHashMap<>();
    /** Injected faults in effect, to clear when the phase ends. */
    private final Map<Injection, Target> injected = new ConcurrentHashMap<>();
    private final AtomicInteger failedActions = new AtomicInteger();
    /** Pauses per leaf in this phase: the first is logged, the rest counted, so logs stay readable. */
    private final Map<Integer, Integer> pauses = new ConcurrentHashMap<>();
    /** The current phase's record; replaced by {@link #startPhase} and {@link #endPhase}. */
    private volatile FaultLog phaseLog = new FaultLog();

    public FaultRunner(RunDirectory run, URI root, PrintStream log) {
        this(run, root, log, event -> {
        });
    }

    /** @param listener told of every event as it is recorded, on the thread that recorded it (tests wait on it) */
    FaultRunner(RunDirectory run, URI root, PrintStream log, Consumer<FaultEvent> listener) {
        this.processes = new LeafProcesses(run);
        this.admin = RootAdmin.of(root, run);
        this.log = log;
        this.listener = listener;
    }

    /** A delay or stall injected into one leaf. */
    private record Injection(String kind, int leaf) {
    }

    /**
     * Checks, before any load starts, that every leaf a pause, kill or restart names has a live
     * process, and that every leaf a delay or stall names accepts injected faults (by clearing its
     * fault, which changes nothing).
     */
    public void requireLeaves(List<Fault> faults) throws IOException {
        for (Fault fault : faults) {
            switch (fault) {
                case Fault.Pause pause -> requirePid(pause.leaf());
                case Fault.Kill kill -> requirePid(kill.leaf());
                case Fault.Restart restart -> {
                    for (int leaf : leavesOf(restart.leaf())) {
                        requirePid(leaf);
                    }
                }
                case Fault.Injected injection -> {
                    for (int leaf : leavesOf(injection.leaf())) {
                        HttpResponse<String> response = admin.clear(leaf, injection.kind());
                        if (response.statusCode() != 200) {
                            // Unless the leaf number is wrong, the cure is the same: a cluster whose leaves obey.
                            throw new IOException("leaf " + leaf + " cannot be " + injection.participle() + ": "
                                    + RootAdmin.detail(response)
                                    + (response.body().contains("expected: 0..") ? "" : injection.refusalHint()));
                        }
                    }
                }
            }
        }
    }

    private void requirePid(int leaf) throws IOException {
        try {
            processes.pidOf(leaf);
        } catch (IOException e) {
            throw new IOException(e.getMessage() + "; faults need a cluster started by ./hedgerow local (its pid files are"
                    + " in " + processes.run().dir() + ", or give --run-dir)");
        }
    }

    /**
     * Starts a new phase's record and schedules {@code faults} from now until {@code phase} has
     * passed; {@link #endPhase()} stops them and returns the record.
     */
    public synchronized void startPhase(List<Fault> faults, Duration phase) {
        FaultLog record = new FaultLog();
        phaseLog = record;
        for (int i = 0; i < faults.size(); i++) {
            switch (faults.get(i)) {
                case Fault.Pause pause -> {
                    Target target = record.expect(i, "pause", Leaves.one(pause.leaf()), pause.startOffset());
                    long pauseMillis = pause.pauseDuration().toMillis();
                    scheduled.add(scheduler.scheduleAtFixedRate(() -> pauseOnce(target, pauseMillis),
                            pause.startOffset().toMillis(), pause.period().toMillis(), TimeUnit.MILLISECONDS));
                }
                case Fault.Kill kill -> {
                    Target target = record.expect(i, "kill", Leaves.one(kill.leaf()), kill.killAt());
                    scheduled.add(scheduler.schedule(() -> kill(target), kill.killAt().toMillis(), TimeUnit.MILLISECONDS));
                    Duration restartAt = kill.restartAtOrNull();
                    if (restartAt != null && restartAt.compareTo(phase) < 0) {
                        scheduled.add(scheduler.schedule(() -> restart(kill.leaf()), restartAt.toMillis(), TimeUnit.MILLISECONDS));
                    }
                }
                case Fault.Restart restart -> {
                    List<Integer> leaves = leavesOrFailure(record, i, "restart", restart.leaf(), restart.startOffset());
                    for (int n = 0; n < leaves.size(); n++) {
                        Duration due = restart.offsetOf(n);
                        Target target = record.expect(i, "restart", Leaves.one(leaves.get(n)), due);
                        scheduled.add(scheduler.schedule(() -> stopAndRestart(target, restart.graceDuration()), due.toMillis(),
                                TimeUnit.MILLISECONDS));
                    }
                }
                case Fault.Injected injection -> {
                    Duration from = injection.startOffset();
                    Duration to = injection.endOffset(phase);
                    for (int leaf : leavesOrFailure(record, i, injection.kind(), injection.leaf(), from)) {
                        Target target = record.expect(i, injection.kind(), Leaves.one(leaf), from);
                        scheduled.add(scheduler.schedule(() -> inject(target, injection, to.minus(from)), from.toMillis(),
                                TimeUnit.MILLISECONDS));
                        if (to.compareTo(phase) < 0) {
                            Injection undo = new Injection(injection.kind(), leaf);
                            scheduled.add(scheduler.schedule(() -> clear(undo), to.toMillis(), TimeUnit.MILLISECONDS));
                        }
                    }
                }
            }
        }
    }

    /** The leaves a fault acts on, or none when the cluster's cannot be listed (recorded as a failure). */
    private List<Integer> leavesOrFailure(FaultLog record, int index, String fault, Leaves leaves, Duration due) {
        try {
            return leavesOf(leaves);
        } catch (IOException e) {
            Target target = record.expect(index, fault, leaves, due);
            failed(target, "list-leaves", e.getMessage(), "  fault: cannot " + fault + " leaves " + leaves + ": " + e.getMessage());
            return List.of();
        }
    }

    /** Fault actions that failed so far in the run (each logged with its reason, and recorded in its phase). */
    public int failedActions() {
        return failedActions.get();
    }

    private void applied(Target target, String action, String detail) {
        listener.accept(phaseLog.record(target, action, Outcome.APPLIED, detail));
    }

    private void undone(Target target, String action, String detail) {
        listener.accept(phaseLog.record(target, action, Outcome.UNDONE, detail));
    }

    private void failed(Target target, String action, String detail, String message) {
        failedActions.incrementAndGet();
        log.println(message);
        listener.accept(phaseLog.record(target, action, Outcome.FAILED, detail));
    }

    /** The leaf numbers a fault acts on: its own, or every leaf of the cluster. */
    private List<Integer> leavesOf(Leaves leaves) throws IOException {
        return leaves.all() ? admin.leaves() : List.of(leaves.number());
    }

    private void pauseOnce(Target target, long pauseMillis) {
        int leaf = target.leaf().number();
        try {
            long pid = processes.pidOf(leaf);
            LeafProcesses.signal("STOP", pid);
            paused.put(pid, target);
            applied(target, "pause", "SIGSTOP to pid " + pid + " for " + pauseMillis + " ms");
            if (pauses.merge(leaf, 1, Integer::sum) == 1) {
                log.printf("  fault: leaf %d paused for %d ms (pid %d), again every period until the phase ends%n",
                        leaf, pauseMillis, pid);
            }
            scheduler.schedule(() -> resume(pid), pauseMillis, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            failed(target, "pause", e.getMessage(), "  fault: cannot pause leaf " + leaf + ": " + e.getMessage());
        }
    }

    private void resume(long pid) {
        Target target = paused.remove(pid);
        if (target == null) {
            return;
        }
        try {
            LeafProcesses.signal("CONT", pid);
            undone(target, "resume", "SIGCONT to pid " + pid);
        } catch (IOException e) {
            failed(target, "resume", e.getMessage(), "  fault: cannot resume pid " + pid + ": " + e.getMessage());
        }
    }

    private void kill(Target target) {
        int leaf = target.leaf().number();
        try {
            long pid = processes.pidOf(leaf);
            LeafProcesses.signal("KILL", pid);
            down.put(leaf, target);
            applied(target, "kill", "SIGKILL to pid " + pid);
            log.printf("  fault: leaf %d killed (pid %d)%n", leaf, pid);
        } catch (IOException e) {
            failed(target, "kill", e.getMessage(), "  fault: cannot kill leaf " + leaf + ": " + e.getMessage());
        }
    }

    /** One leaf's turn in a rolling restart: a graceful stop, then a restart at once. */
    private void stopAndRestart(Target target, Duration grace) {
        int leaf = target.leaf().number();
        long pid;
        try {
            pid = processes.pidOf(leaf);
        } catch (IOException e) {
            failed(target, "stop", e.getMessage(), "  fault: cannot stop leaf " + leaf + ": " + e.getMessage());
            return;
        }
        // Marked before the signal: from then on the leaf may be gone, and the undo must restart it.
        down.put(leaf, target);
        try {
            String stopped = processes.stop(pid, grace);
            applied(target, "stop", stopped);
            log.printf("  fault: leaf %d stopped (%s)%n", leaf, stopped);
        } catch (IOException e) {
            // Restarted all the same: the root refuses (409) if the leaf is in fact still running.
            failed(target, "stop", e.getMessage(), "  fault: cannot stop leaf " + leaf + ": " + e.getMessage());
        }
        restart(leaf);
    }

    /**
     * Starts a leaf that a fault took down again, through the root; nothing when it is not down. A
     * leaf whose restart fails stays down, and the undo at the phase's end tries again, unless the
     * root says it runs (409).
     */
    private void restart(int leaf) {
        Target target = down.get(leaf);
        if (target == null) {
            return;
        }
        HttpResponse<String> response = adminCall(target, "restart", "restart", "", () -> admin.restart(leaf));
        if (response != null && (response.statusCode() == 200 || response.statusCode() == 409)) {
            down.remove(leaf);
        }
        if (response != null && response.statusCode() == 200) {
            String result = RootAdmin.field(response, "result");
            undone(target, "restart", "HTTP 200: " + (result.isEmpty() ? response.body() : result));
            log.printf("  fault: leaf %d restart: HTTP %d %s%n", leaf, response.statusCode(), response.body());
        }
    }

    /** Asks the leaf to delay or stall for {@code lasting}, after which it drops the fault by itself. */
    private void inject(Target target, Fault.Injected injection, Duration lasting) {
        int leaf = target.leaf().number();
        // Marked first: if the answer is lost, the undo still clears it.
        injected.put(new Injection(injection.kind(), leaf), target);
        String body = injection.adminBody(leaf, Math.max(1, lasting.toMillis()));
        HttpResponse<String> response = adminCall(target, "inject", injection.kind(), " (asked for " + body + ")",
                () -> admin.inject(leaf, injection.kind(), body));
        if (response != null && response.statusCode() == 200) {
            String result = RootAdmin.field(response, "result");
            // The leaf's answer names the seed it uses, so the event lets a run be repeated.
            applied(target, "inject", result.isEmpty() ? response.body() : result);
            log.printf("  fault: leaf %d %s: %s%n", leaf, injection.kind(), result.isEmpty() ? response.body() : result);
        }
    }

    private void clear(Injection injection) {
        Target target = injected.remove(injection);
        if (target == null) {
            return;
        }
        HttpResponse<String> response = adminCall(target, "clear", injection.kind(),
                " (the leaf drops it by itself when the phase is due to end)",
                () -> admin.clear(injection.leaf(), injection.kind()));
        if (response != null && response.statusCode() == 200) {
            undone(target, "clear", "HTTP 200");
            log.printf("  fault: leaf %d %s: cleared%n", injection.leaf(), injection.kind());
        }
    }

    /** One request to the root's admin routes. */
    private interface AdminRequest {
        HttpResponse<String> send() throws IOException;
    }

    /**
     * Sends an admin request for {@code target}'s leaf; an answer other than 200, or none, is
     * recorded as the action's failure ({@code what} names it in the log, {@code note} follows its
     * reason).
     *
     * @return the answer, whatever its status; null when none came
     */
    private HttpResponse<String> adminCall(Target target, String action, String what, String note, AdminRequest request) {
        int leaf = target.leaf().number();
        try {
            HttpResponse<String> response = request.send();
            if (response.statusCode() != 200) {
                String detail = RootAdmin.detail(response);
                failed(target, action, "HTTP " + response.statusCode() + ": " + detail + note,
                        "  fault: leaf " + leaf + " " + what + ": HTTP " + response.statusCode() + " " + detail + note);
            }
            return response;
        } catch (IOException e) {
            failed(target, action, e.getMessage() + note, "  fault: cannot " + what + " leaf " + leaf + " through "
                    + admin.root() + ": " + e.getMessage() + note);
            return null;
        }
    }

    /**
     * Stops scheduling faults and undoes the ones in effect: resumes paused leaves, clears delays
     * and stalls, restarts leaves that a kill or a rolling restart took down.
     *
     * @return what the phase's faults did, the undo included
     */
    public synchronized PhaseFaults endPhase() {
        scheduled.forEach(future -> future.cancel(false));
        scheduled.clear();
        // Run the undo on the fault thread, after any action already running, so none slips past it.
        try {
            scheduler.submit(() -> {
                new ArrayList<>(paused.keySet()).forEach(this::resume);
                new ArrayList<>(injected.keySet()).forEach(this::clear);
                new ArrayList<>(down.keySet()).forEach(this::restart);
                pauses.forEach((leaf, count) -> log.printf("  fault: leaf %d was paused %d times%n", leaf, count));
                pauses.clear();
            }).get(UNDO_PATIENCE.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            // Last resort from this thread: never leave a leaf frozen or slow.
            new ArrayList<>(paused.keySet()).forEach(this::resume);
            new ArrayList<>(injected.keySet()).forEach(this::clear);
        }
        PhaseFaults faults = phaseLog.finish();
        phaseLog = new FaultLog();
        return faults;
    }

    @Override
    public void close() {
        if (!scheduler.isShutdown()) {
            endPhase();
            scheduler.shutdownNow();
        }
    }
}
