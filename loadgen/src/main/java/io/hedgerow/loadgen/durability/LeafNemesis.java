package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.scenario.LeafProcesses;
import io.hedgerow.loadgen.scenario.RootAdmin;
import io.hedgerow.root.local.RunDirectory;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Kills (SIGKILL) or pauses (SIGSTOP) one leaf process of a local cluster: the primary or a replica
 * of a partition chosen at random, as the root's {@code /cluster} names them at that moment. Heal
 * resumes a paused leaf (SIGCONT) and starts a killed one again through the root's
 * {@code POST /admin/leaves/{n}/restart}, once its process has gone, or, for leaves no root
 * supervises (a cluster across network namespaces, {@code durability.sh --netns}), with a restart
 * command of the caller's ({@link #withRestartCommand}). Leaves are found through the run
 * directory's pid files, as the scenario faults find them ({@link LeafProcesses}).
 */
public final class LeafNemesis implements Nemesis {
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(10);
    private static final Duration RESTART_PATIENCE = Duration.ofSeconds(120);

    private final List<URI> roots;
    private final RunDirectory run;
    private final LeafProcesses processes;
    private final Map<Integer, Long> killed = new LinkedHashMap<>();
    private final Map<Integer, Long> paused = new LinkedHashMap<>();
    private final Restarter restarter;

    /** Starts a killed leaf again; returns what it did. */
    interface Restarter {
        String restart(int leaf) throws IOException;
    }

    /** Leaves of {@code ./hedgerow local}: its root restarts a killed one. */
    public LeafNemesis(URI root, RunDirectory run) {
        this(List.of(root), run, null);
    }

    private LeafNemesis(List<URI> roots, RunDirectory run, Restarter restarter) {
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("roots: none (expected: at least one root URL)");
        }
        this.roots = List.copyOf(roots);
        this.run = run;
        this.processes = new LeafProcesses(run);
        this.restarter = restarter != null ? restarter : this::restartThroughRoot;
    }

    /**
     * Leaves started by the caller, not by a root: a killed leaf is started again by
     * {@code bash -c <command>}, with every {@code {leaf}} in it replaced by the leaf's number. The
     * command must start the leaf in the background, rewrite its pid file, and return, best once the
     * leaf serves (it is waited for, up to two minutes; a status other than 0 fails the heal).
     */
    public static LeafNemesis withRestartCommand(URI root, RunDirectory run, String command) {
        return withRestartCommand(List.of(root), run, command);
    }

    /** As {@link #withRestartCommand(URI, RunDirectory, String)}, asking the first root that answers who holds what. */
    public static LeafNemesis withRestartCommand(List<URI> roots, RunDirectory run, String command) {
        if (command == null || !command.contains("{leaf}")) {
            throw new IllegalArgumentException("leaf restart command: '" + command + "' (expected: a shell command with"
                    + " {leaf} where the leaf's number goes)");
        }
        return new LeafNemesis(roots, run, leaf -> runRestartCommand(command.replace("{leaf}", Integer.toString(leaf)), leaf,
                run.logFile("leaf-restarts")));
    }

    @Override
    public String name() {
        return "leaf";
    }

    @Override
    public String strike(Random random) throws IOException {
        boolean kill = random.nextBoolean();
        boolean primary = random.nextBoolean();
        ClusterRoles roles = ClusterRoles.fetch(roots);
        List<Integer> partitions = new ArrayList<>(roles.replicas().keySet());
        if (partitions.isEmpty()) {
            throw new IOException("GET /cluster lists no partition replicas");
        }
        partitions.sort(null);
        int partition = partitions.get(random.nextInt(partitions.size()));
        List<Integer> copies = roles.replicas().get(partition);
        Integer leader = roles.primaries().get(partition);
        int leaf;
        String role;
        if (primary && leader != null) {
            leaf = leader;
            role = "primary";
        } else {
            List<Integer> others = new ArrayList<>(copies);
            others.remove(leader);
            if (others.isEmpty()) {
                others = copies;
            }
            leaf = others.get(random.nextInt(others.size()));
            role = leader == null ? "copy (no primary now)" : "replica";
        }
        long pid = processes.pidOf(leaf);
        LeafProcesses.signal(kill ? "KILL" : "STOP", pid);
        (kill ? killed : paused).put(leaf, pid);
        return (kill ? "kill" : "pause") + " " + role + " of partition " + partition + ": leaf " + leaf + " (pid " + pid + ")";
    }

    @Override
    public String heal() throws IOException {
        List<String> done = new ArrayList<>();
        for (Map.Entry<Integer, Long> pause : new ArrayList<>(paused.entrySet())) {
            LeafProcesses.signal("CONT", pause.getValue());
            paused.remove(pause.getKey());
            done.add("resume leaf " + pause.getKey());
        }
        for (Map.Entry<Integer, Long> kill : new ArrayList<>(killed.entrySet())) {
            awaitExit(kill.getValue());
            String restarted = restarter.restart(kill.getKey());
            killed.remove(kill.getKey());
            done.add(restarted);
        }
        return String.join(", ", done);
    }

    private String restartThroughRoot(int leaf) throws IOException {
        HttpResponse<String> response = RootAdmin.of(roots.get(0), run).restart(leaf);
        if (response.statusCode() != 200 && response.statusCode() != 409) {
            throw new IOException("restart of leaf " + leaf + ": HTTP " + response.statusCode() + " "
                    + RootAdmin.detail(response));
        }
        return "restart leaf " + leaf + (response.statusCode() == 409 ? " (already running)" : "");
    }

    /** Its output goes to {@code log}, not a pipe: a leaf it leaves running must not hold a pipe this waits on. */
    static String runRestartCommand(String command, int leaf, Path log) throws IOException {
        return runRestartCommand(command, "leaf " + leaf, log);
    }

    /**
     * Runs {@code bash -c command} that starts {@code what} (e.g. {@code root 2}) again and returns once it
     * serves; waits up to two minutes for it and fails unless it exits with 0.
     */
    static String runRestartCommand(String command, String what, Path log) throws IOException {
        Process process = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        try {
            if (!process.waitFor(RESTART_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("restart of " + what + ": '" + command + "' still running after "
                        + RESTART_PATIENCE.toSeconds() + " s");
            }
            if (process.exitValue() != 0) {
                throw new IOException("restart of " + what + ": '" + command + "' exited with status "
                        + process.exitValue() + " (see " + log + ")");
            }
            return "restart " + what + " (restart command)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while restarting " + what, e);
        }
    }

    private static void awaitExit(long pid) throws IOException {
        if (!LeafProcesses.awaitExit(pid, EXIT_PATIENCE)) {
            throw new IOException("pid " + pid + " still running " + EXIT_PATIENCE.toSeconds() + "s after SIGKILL");
        }
    }
}
