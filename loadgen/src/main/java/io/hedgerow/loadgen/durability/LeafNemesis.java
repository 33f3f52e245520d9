package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.scenario.LeafProcesses;
import io.hedgerow.loadgen.scenario.RootAdmin;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Kills (SIGKILL) or pauses (SIGSTOP) one leaf process of a local cluster: the primary or a replica
 * of a partition chosen at random, as the root's {@code /cluster} names them at that moment. Heal
 * resumes a paused leaf (SIGCONT) and starts a killed one again through the root's
 * {@code POST /admin/leaves/{n}/restart}, once its process has gone. Leaves are found through the
 * run directory's pid files, as the scenario faults find them ({@link LeafProcesses}).
 */
public final class LeafNemesis implements Nemesis {
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(10);

    private final URI root;
    private final RunDirectory run;
    private final LeafProcesses processes;
    private final Map<Integer, Long> killed = new LinkedHashMap<>();
    private final Map<Integer, Long> paused = new LinkedHashMap<>();

    public LeafNemesis(URI root, RunDirectory run) {
        this.root = root;
        this.run = run;
        this.processes = new LeafProcesses(run);
    }

    @Override
    public String name() {
        return "leaf";
    }

    @Override
    public String strike(Random random) throws IOException {
        boolean kill = random.nextBoolean();
        boolean primary = random.nextBoolean();
        ClusterRoles roles = ClusterRoles.fetch(root);
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
            HttpResponse<String> response = RootAdmin.of(root, run).restart(kill.getKey());
            if (response.statusCode() != 200 && response.statusCode() != 409) {
                throw new IOException("restart of leaf " + kill.getKey() + ": HTTP " + response.statusCode() + " "
                        + RootAdmin.detail(response));
            }
            killed.remove(kill.getKey());
            done.add("restart leaf " + kill.getKey() + (response.statusCode() == 409 ? " (already running)" : ""));
        }
        return String.join(", ", done);
    }

    private static void awaitExit(long pid) throws IOException {
        if (!LeafProcesses.awaitExit(pid, EXIT_PATIENCE)) {
            throw new IOException("pid " + pid + " still running " + EXIT_PATIENCE.toSeconds() + "s after SIGKILL");
        }
    }
}
