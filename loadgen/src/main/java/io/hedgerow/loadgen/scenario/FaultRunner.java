package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Applies a phase's faults to the leaves of a cluster started by {@code ./hedgerow local}, found
 * through its pid files: pauses (SIGSTOP, then SIGCONT) and kills (SIGKILL, then a restart through
 * the root's {@code /admin} endpoint), and injected delays and stalls (through the root's
 * {@code /admin/leaves/{n}/delay} and {@code /admin/leaves/{n}/stall}, which the leaf applies
 * itself). An injected fault for {@code "all"} leaves goes to every leaf the root's
 * {@code GET /cluster} lists. Every fault is undone when the phase ends, when {@link #close()}
 * runs, or when the JVM exits (the caller registers {@link #close()} as a shutdown hook): no leaf
 * is left frozen, dead, slow or stalling. An injected fault is also bounded at the leaf, which
 * drops it by itself when the phase is due to end, so a generator that dies without running its
 * hooks leaves no slow leaf behind either.
 *
 * <p>A fault action that fails (a leaf that cannot be paused, an injection the root refuses) is
 * logged and counted ({@link #failedActions()}), and the run goes on without it.
 *
 * <p><b>Assumptions and guarantees.</b> Fault actions run on one scheduler thread;
 * {@link #endPhase()} and {@link #close()} may be called from any thread.
 */
public final class FaultRunner implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RunDirectory run;
    private final URI root;
    private final PrintStream log;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "faults");
        thread.setDaemon(true);
        return thread;
    });
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
    private final Set<Long> paused = ConcurrentHashMap.newKeySet();
    private final Set<Integer> killed = ConcurrentHashMap.newKeySet();
    /** Injected faults in effect, to clear when the phase ends. */
    private final Set<Injection> injected = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failedActions = new AtomicInteger();
    /** The numbers of the cluster's leaves, read once from the root when a fault names "all". */
    private List<Integer> clusterLeaves;
    /** Pauses per leaf in this phase: the first is logged, the rest counted, so logs stay readable. */
    private final Map<Integer, Integer> pauses = new ConcurrentHashMap<>();

    public FaultRunner(RunDirectory run, URI root, PrintStream log) {
        this.run = run;
        this.root = root;
        this.log = log;
    }

    /** A delay or stall injected into one leaf. */
    private record Injection(String kind, int leaf) {
    }

    /**
     * Checks, before any load starts, that every leaf a pause or kill names has a live process, and
     * that every leaf a delay or stall names accepts injected faults (by clearing its fault, which
     * changes nothing).
     */
    public void requireLeaves(List<Fault> faults) throws IOException {
        for (Fault fault : faults) {
            switch (fault) {
                case Fault.Pause pause -> pidOf(pause.leaf());
                case Fault.Kill kill -> pidOf(kill.leaf());
                case Fault.Injected injection -> {
                    for (int leaf : leavesOf(injection)) {
                        HttpResponse<String> response = adminRequest(leaf, injection.kind(), HttpRequest.newBuilder().DELETE());
                        if (response.statusCode() != 200) {
                            // Unless the leaf number is wrong, the cure is the same: a cluster whose leaves obey.
                            throw new IOException("leaf " + leaf + " cannot be " + participle(injection) + ": "
                                    + detail(response) + (response.body().contains("expected: 0..") ? "" : hint(injection)));
                        }
                    }
                }
            }
        }
    }

    /** What a refusal most likely means; stalls came later than delays, so a root may lack them. */
    private static String hint(Fault.Injected injection) {
        return injection instanceof Fault.Stall
                ? " (stall faults need a cluster started with ./hedgerow local --fault-injection, by a Hedgerow whose root"
                        + " offers /admin/leaves/{n}/stall)"
                : " (delay faults need a cluster started with ./hedgerow local --fault-injection)";
    }

    private static String participle(Fault.Injected injection) {
        return injection.kind().equals("delay") ? "delayed" : "stalled";
    }

    /** Schedules {@code faults} from now until {@code phase} has passed. */
    public synchronized void startPhase(List<Fault> faults, Duration phase) {
        for (Fault fault : faults) {
            switch (fault) {
                case Fault.Pause pause -> {
                    long periodMillis = pause.period().toMillis();
                    long pauseMillis = pause.pauseDuration().toMillis();
                    scheduled.add(scheduler.scheduleAtFixedRate(() -> pauseOnce(pause.leaf(), pauseMillis),
                            pause.startOffset().toMillis(), periodMillis, TimeUnit.MILLISECONDS));
                }
                case Fault.Kill kill -> {
                    scheduled.add(scheduler.schedule(() -> kill(kill.leaf()), kill.killAt().toMillis(), TimeUnit.MILLISECONDS));
                    Duration restartAt = kill.restartAtOrNull();
                    if (restartAt != null && restartAt.compareTo(phase) < 0) {
                        scheduled.add(scheduler.schedule(() -> restart(kill.leaf()), restartAt.toMillis(), TimeUnit.MILLISECONDS));
                    }
                }
                case Fault.Injected injection -> {
                    Duration from = injection.startOffset();
                    Duration to = injection.endOffset(phase);
                    List<Integer> leaves;
                    try {
                        leaves = leavesOf(injection);
                    } catch (IOException e) {
                        failed("  fault: cannot " + injection.kind() + " leaves " + injection.leaf() + ": " + e.getMessage());
                        continue;
                    }
                    for (int leaf : leaves) {
                        scheduled.add(scheduler.schedule(() -> inject(injection, leaf, to.minus(from)), from.toMillis(),
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

    /** Fault actions that failed so far (each logged with its reason). */
    public int failedActions() {
        return failedActions.get();
    }

    private void failed(String message) {
        failedActions.incrementAndGet();
        log.println(message);
    }

    /** The leaf numbers an injected fault acts on: its own, or every leaf of the cluster. */
    private List<Integer> leavesOf(Fault.Injected injection) throws IOException {
        return injection.leaf().all() ? clusterLeaves() : List.of(injection.leaf().number());
    }

    private synchronized List<Integer> clusterLeaves() throws IOException {
        if (clusterLeaves == null) {
            URI cluster = root.resolve("/cluster");
            HttpResponse<String> response = send(HttpRequest.newBuilder(cluster).GET());
            if (response.statusCode() != 200) {
                throw new IOException("cannot list the leaves of the cluster: GET " + cluster + ": HTTP "
                        + response.statusCode() + " " + detail(response));
            }
            JsonNode leaves = JSON.readTree(response.body()).path("leaves");
            List<Integer> numbers = new ArrayList<>();
            for (int i = 0; i < leaves.size(); i++) {
                numbers.add(leaves.get(i).path("leaf").asInt(i));
            }
            if (numbers.isEmpty()) {
                throw new IOException("cannot list the leaves of the cluster: GET " + cluster + " names none");
            }
            clusterLeaves = List.copyOf(numbers);
        }
        return clusterLeaves;
    }

    private void pauseOnce(int leaf, long pauseMillis) {
        try {
            long pid = pidOf(leaf);
            signal("STOP", pid);
            paused.add(pid);
            if (pauses.merge(leaf, 1, Integer::sum) == 1) {
                log.printf("  fault: leaf %d paused for %d ms (pid %d), again every period until the phase ends%n",
                        leaf, pauseMillis, pid);
            }
            scheduler.schedule(() -> resume(pid), pauseMillis, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            failed("  fault: cannot pause leaf " + leaf + ": " + e.getMessage());
        }
    }

    private void resume(long pid) {
        if (paused.remove(pid)) {
            try {
                signal("CONT", pid);
            } catch (IOException e) {
                log.println("  fault: cannot resume pid " + pid + ": " + e.getMessage());
            }
        }
    }

    private void kill(int leaf) {
        try {
            long pid = pidOf(leaf);
            signal("KILL", pid);
            killed.add(leaf);
            log.printf("  fault: leaf %d killed (pid %d)%n", leaf, pid);
        } catch (IOException e) {
            failed("  fault: cannot kill leaf " + leaf + ": " + e.getMessage());
        }
    }

    private void restart(int leaf) {
        if (!killed.remove(leaf)) {
            return;
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(root.resolve("/admin/leaves/" + leaf + "/restart"))
                    .timeout(Duration.ofSeconds(90)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            log.printf("  fault: leaf %d restart: HTTP %d %s%n", leaf, response.statusCode(), response.body());
        } catch (IOException e) {
            failed("  fault: cannot restart leaf " + leaf + " through " + root + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks the leaf to delay or stall for {@code lasting}, after which it drops the fault by itself. */
    private void inject(Fault.Injected injection, int leaf, Duration lasting) {
        Injection undo = new Injection(injection.kind(), leaf);
        // Marked first: if the answer is lost, the undo still clears it.
        injected.add(undo);
        long durationMillis = Math.max(1, lasting.toMillis());
        String body = switch (injection) {
            case Fault.Delay delay -> "{\"delay_ms\": " + delay.delayDuration().toNanos() / 1e6
                    + ", \"probability\": " + delay.probability()
                    + ", \"duration_ms\": " + durationMillis
                    + (delay.seedFor(leaf) == null ? "" : ", \"seed\": " + delay.seedFor(leaf))
                    // Only when asked for: a root without distributions still takes a plain delay.
                    + (delay.distribution() == null ? "" : ", \"distribution\": \"" + delay.distribution() + "\"") + "}";
            case Fault.Stall stall -> "{\"stall_ms\": " + stall.stallDuration().toMillis()
                    + ", \"every_ms\": " + stall.period().toMillis()
                    + ", \"duration_ms\": " + durationMillis + "}";
        };
        try {
            HttpResponse<String> response = adminRequest(leaf, injection.kind(), HttpRequest.newBuilder()
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
            if (response.statusCode() == 200) {
                String result = field(response, "result");
                log.printf("  fault: leaf %d %s: %s%n", leaf, injection.kind(), result.isEmpty() ? response.body() : result);
            } else {
                failed("  fault: leaf " + leaf + " " + injection.kind() + ": HTTP " + response.statusCode() + " "
                        + detail(response) + " (asked for " + body + ")");
            }
        } catch (IOException e) {
            failed("  fault: cannot " + injection.kind() + " leaf " + leaf + " through " + root + ": " + e.getMessage());
        }
    }

    private void clear(Injection injection) {
        if (!injected.remove(injection)) {
            return;
        }
        try {
            HttpResponse<String> response = adminRequest(injection.leaf(), injection.kind(), HttpRequest.newBuilder().DELETE());
            if (response.statusCode() == 200) {
                log.printf("  fault: leaf %d %s: cleared%n", injection.leaf(), injection.kind());
            } else {
                failed("  fault: leaf " + injection.leaf() + " " + injection.kind() + ": HTTP " + response.statusCode()
                        + " " + detail(response) + " (the leaf drops it by itself when the phase is due to end)");
            }
        } catch (IOException e) {
            failed("  fault: cannot clear the " + injection.kind() + " of leaf " + injection.leaf() + " through " + root
                    + ": " + e.getMessage() + " (the leaf drops it by itself when the phase is due to end)");
        }
    }

    /** {@code /admin/leaves/{leaf}/{kind}} of the root. */
    private HttpResponse<String> adminRequest(int leaf, String kind, HttpRequest.Builder request) throws IOException {
        return send(request.uri(root.resolve("/admin/leaves/" + leaf + "/" + kind)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The {@code detail} of an error body, or the body itself. */
    private static String detail(HttpResponse<String> response) {
        String detail = field(response, "detail");
        return detail.isEmpty() ? response.body() : detail;
    }

    private static String field(HttpResponse<String> response, String name) {
        try {
            return JSON.readTree(response.body()).path(name).asText();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Stops scheduling faults and undoes the ones in effect: resumes paused leaves, restarts killed
     * ones, clears delays and stalls.
     */
    public synchronized void endPhase() {
        scheduled.forEach(future -> future.cancel(false));
        scheduled.clear();
        // Run the undo on the fault thread, after any action already running, so none slips past it.
        try {
            scheduler.submit(() -> {
                new ArrayList<>(paused).forEach(this::resume);
                new ArrayList<>(injected).forEach(this::clear);
                new ArrayList<>(killed).forEach(this::restart);
                pauses.forEach((leaf, count) -> log.printf("  fault: leaf %d was paused %d times%n", leaf, count));
                pauses.clear();
            }).get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Last resort from this thread: never leave a leaf frozen or slow.
            new ArrayList<>(paused).forEach(this::resume);
            new ArrayList<>(injected).forEach(this::clear);
        }
    }

    @Override
    public void close() {
        if (!scheduler.isShutdown()) {
            endPhase();
            scheduler.shutdownNow();
        }
    }

    private long pidOf(int leaf) throws IOException {
        try {
            long pid = Long.parseLong(Files.readString(run.pidFile("leaf-" + leaf)).trim());
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return pid;
            }
            throw new IOException("leaf " + leaf + " (pid " + pid + ") is not running");
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("no pid file for leaf " + leaf + " in " + run.dir()
                    + "; faults need a cluster started by ./hedgerow local");
        } catch (NumberFormatException e) {
            throw new IOException("unreadable pid file " + run.pidFile("leaf-" + leaf));
        }
    }

    private static void signal(String signal, long pid) throws IOException {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (kill.waitFor() != 0) {
                throw new IOException("kill -" + signal + " " + pid + " failed: " + new String(kill.getInputStream().readAllBytes()).trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while signalling " + pid, e);
        }
    }
}
