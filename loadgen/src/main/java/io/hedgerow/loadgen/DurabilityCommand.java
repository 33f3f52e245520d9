package io.hedgerow.loadgen;

import io.hedgerow.common.time.Durations;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.loadgen.durability.DocumentClient;
import io.hedgerow.loadgen.durability.FailoverClient;
import io.hedgerow.loadgen.durability.DurabilityRun;
import io.hedgerow.loadgen.durability.FinalReads;
import io.hedgerow.loadgen.durability.LeafNemesis;
import io.hedgerow.loadgen.durability.LinkNemesis;
import io.hedgerow.loadgen.durability.Nemesis;
import io.hedgerow.loadgen.durability.NemesisLoop;
import io.hedgerow.loadgen.durability.PartitionNemesis;
import io.hedgerow.loadgen.durability.RootChoice;
import io.hedgerow.loadgen.durability.RootNemesis;
import io.hedgerow.loadgen.durability.RootProcessNemesis;
import io.hedgerow.loadgen.durability.ZooKeeperNemesis;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loadgen durability}: Jepsen's set workload against a running cluster while a nemesis kills
 * and pauses its processes; ends with {@code acknowledged W, lost L, resurrected D, split terms T}
 * and exits 3 when L, D or T is not 0 or an acknowledged state could not be read back.
 */
@Command(name = "durability", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Check that a cluster never loses an acknowledged write (Jepsen's set workload, with deletes).",
                "Clients add documents with unique ids and delete acknowledged ones, recording every answer; a nemesis"
                        + " kills (SIGKILL, then a restart) and pauses (SIGSTOP/SIGCONT) primaries and replicas at random,"
                        + " with --nemesis root the whole local cluster (or, with --root-restart-command, one root process),"
                        + " with --nemesis zk its embedded ZooKeeper, with --nemesis link (a cluster across network namespaces)"
                        + " one host's network link, with --nemesis partition the hosts split into two groups. At the end every"
                        + " id is read back: every acknowledged add must be there, no acknowledged delete may be.",
                "With several --target roots, client i writes to root i mod n and fails over to the next on no connection,"
                        + " no answer or 503; a write whose first root got no answer (or a 503) counts as indeterminate (info),"
                        + " whatever the next root answered.",
                "Last line: acknowledged W, lost L, resurrected D, split terms T. Exit 3 when the check fails, 1 on an error.",
                "",
                "Example (a cluster of ./hedgerow local --no-leaf-restarts):",
                "  ./hedgerow loadgen durability --minutes 2 --seed 7 --target http://127.0.0.1:8080 --run-dir data/run",
                "Two roots across network namespaces, root and partition faults: benchmarks/durability.sh --netns"
                        + " --nemesis leaf,root,partition (it passes --target, --root-restart-command and --hosts).",
                ""})
final class DurabilityCommand implements Callable<Integer> {
    /** How long every client tries a root that just failed to answer last (a cut-off root costs one timeout, not one per write). */
    private static final Duration AVOID_FAILED_ROOT = Duration.ofSeconds(10);

    @Spec
    private CommandSpec spec;

    @Option(names = "--minutes", defaultValue = "2", description = "How long the workload runs (default: ${DEFAULT-VALUE}).")
    private double minutes;

    @Option(names = "--seed", defaultValue = "7", description = "Seed of the clients' and the nemesis's choices (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--target", defaultValue = "http://127.0.0.1:8080", split = ",", paramLabel = "URL",
            description = "Root server URL, or several roots of one cluster, comma-separated: client i prefers root i mod n"
                    + " and fails over to the next (default: ${DEFAULT-VALUE}).")
    private List<URI> targets;

    @Option(names = "--run-dir", paramLabel = "DIR", required = true,
            description = "The cluster's run directory: leaf pid files, tokens, and terms/*.log if leaves write term logs.")
    private Path runDir;

    @Option(names = "--nemesis", defaultValue = "leaf", split = ",",
            description = "Faults: leaf (kill or pause a primary or replica), root (kill the whole local process and start it"
                    + " again with --restart-command; with --root-restart-command: kill or pause one root process, then"
                    + " resume it or start it again), zk (kill or pause the embedded ZooKeeper of 'local --zk embedded',"
                    + " half the time with one leaf too, then resume it or start it again), link (cut one host of --links off"
                    + " the network, then restore it; needs root), partition (split the --hosts into random halves that drop"
                    + " each other's packets, then heal; needs root), none; comma-separated (default: ${DEFAULT-VALUE}).")
    private List<String> nemesisNames;

    @Option(names = "--restart-command", paramLabel = "CMD",
            description = "With --nemesis root: the shell command that starts the cluster again on the same index and run"
                    + " directory, with fixed --write-token and --admin-token.")
    private String restartCommand;

    @Option(names = "--root-restart-command", paramLabel = "CMD",
            description = "With --nemesis root, for roots that run apart from their leaves (durability.sh --netns): the"
                    + " shell command that starts root {root} (1..number of --target URLs) again and returns once it is"
                    + " ready; pid files <run dir>/root-<n>.pid.")
    private String rootRestartCommand;

    @Option(names = "--hosts", paramLabel = "NAMESPACE=ADDRESS[,...]",
            description = "With --nemesis partition: the hosts it splits, each a network namespace and its address, e.g."
                    + " hr-root1=10.77.0.10,hr-leaf1=10.77.0.11 (benchmarks/durability.sh --netns gives them).")
    private String hosts;

    @Option(names = "--links", paramLabel = "HOST=LINK[,...]",
            description = "With --nemesis link: the hosts whose link it may cut, each with its network interface, e.g."
                    + " leaf1=hrv-leaf1,root1=hrv-root1 (benchmarks/durability.sh --netns gives them).")
    private String links;

    @Option(names = "--leaf-restart-command", paramLabel = "CMD",
            description = "For leaves no root supervises (durability.sh --netns): the shell command that starts leaf {leaf}"
                    + " again in the background and rewrites its pid file; default: the root's POST /admin/leaves/{n}/restart.")
    private String leafRestartCommand;

    @Option(names = "--clients", defaultValue = "4", description = "Concurrent clients (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--delete-share", defaultValue = "0.25",
            description = "Share of operations that delete an acknowledged document (default: ${DEFAULT-VALUE}).")
    private double deleteShare;

    @Option(names = "--request-timeout", defaultValue = "15s",
            description = "A write unanswered for this long counts as indeterminate (default: ${DEFAULT-VALUE}).")
    private String requestTimeout;

    @Option(names = "--quiet", defaultValue = "2s..6s", paramLabel = "MIN..MAX",
            description = "Spells without a fault (default: ${DEFAULT-VALUE}).")
    private String quiet;

    @Option(names = "--fault", defaultValue = "3s..10s", paramLabel = "MIN..MAX",
            description = "Spells with one (default: ${DEFAULT-VALUE}).")
    private String fault;

    @Option(names = "--read-patience", defaultValue = "3m",
            description = "How long the final reads wait for the roots to be ready and each id to be readable"
                    + " (default: ${DEFAULT-VALUE}).")
    private String readPatience;

    @Option(names = "--write-token", paramLabel = "TOKEN",
            description = "Default: $HEDGEROW_WRITE_TOKEN, else <run dir>/write-token.")
    private String writeToken;

    @Option(names = "--results", defaultValue = "results", paramLabel = "DIR",
            description = "Where the run's folder goes (default: ${DEFAULT-VALUE}).")
    private Path results;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true);
        try {
            RunDirectory run = new RunDirectory(runDir);
            Duration patience = Durations.parse(readPatience);
            String token = token(run);
            List<DocumentClient> roots = new ArrayList<>();
            for (URI target : targets) {
                roots.add(new DocumentClient(target, token, Durations.parse(requestTimeout)));
            }
            FailoverClient client = new FailoverClient(roots, new RootChoice(roots.size(), Ticker.system(), AVOID_FAILED_ROOT));
            FinalReads reads = new FinalReads(client, targets, patience, Math.max(4, clients));
            String tag = "dur-" + seed + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMddHHmmss"));
            DurabilityRun.Settings settings = new DurabilityRun.Settings(Duration.ofMillis(Math.round(minutes * 60_000)),
                    seed, clients, deleteShare, timing(), tag, runDir, results.resolve(tag));
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("target", String.join(",", targets.stream().map(URI::toString).toList()));
            described.put("minutes", minutes);
            described.put("seed", seed);
            described.put("clients", clients);
            described.put("delete_share", deleteShare);
            described.put("nemesis", String.join(",", nemesisNames));
            described.put("quiet", quiet);
            described.put("fault", fault);
            described.put("request_timeout", requestTimeout);
            DurabilityRun.Result result = new DurabilityRun(settings, nemeses(run, reads), Ticker.system(), out)
                    .run(client, reads, described);
            return result.verdict().valid() ? 0 : 3;
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }

    private List<Nemesis> nemeses(RunDirectory run, FinalReads reads) {
        List<Nemesis> nemeses = new ArrayList<>();
        for (String name : nemesisNames) {
            switch (name.strip()) {
                case "leaf" -> nemeses.add(leafNemesis(run));
                case "root" -> nemeses.add(rootRestartCommand != null
                        ? RootProcessNemesis.withRestartCommand(run, targets.size(), rootRestartCommand)
                        : new RootNemesis(run, restartCommand, reads));
                case "zk" -> nemeses.add(new ZooKeeperNemesis(run, leafNemesis(run)));
                case "link" -> {
                    if (links == null) {
                        throw new IllegalArgumentException("--nemesis link needs --links (expected: host=link[,...])");
                    }
                    nemeses.add(new LinkNemesis(LinkNemesis.parseHosts(links), LinkNemesis.ipLink()));
                }
                case "partition" -> {
                    if (hosts == null) {
                        throw new IllegalArgumentException("--nemesis partition needs --hosts (expected: namespace=address[,...])");
                    }
                    nemeses.add(new PartitionNemesis(PartitionNemesis.parseHosts(hosts), PartitionNemesis.ipRules()));
                }
                case "none" -> {
                }
                default -> throw new IllegalArgumentException("--nemesis: '" + name + "' (expected: leaf, root, zk, link, partition or none)");
            }
        }
        return nemeses;
    }

    private LeafNemesis leafNemesis(RunDirectory run) {
        return leafRestartCommand == null ? new LeafNemesis(targets.get(0), run)
                : LeafNemesis.withRestartCommand(targets, run, leafRestartCommand);
    }

    private NemesisLoop.Timing timing() {
        Duration[] q = range("--quiet", quiet);
        Duration[] f = range("--fault", fault);
        return new NemesisLoop.Timing(q[0], q[1], f[0], f[1]);
    }

    private static Duration[] range(String option, String value) {
        String[] parts = value.split("\\.\\.");
        if (parts.length != 2) {
            throw new IllegalArgumentException(option + ": '" + value + "' (expected: MIN..MAX, e.g. 2s..6s)");
        }
        return new Duration[] {Durations.parse(parts[0]), Durations.parse(parts[1])};
    }

    private String token(RunDirectory run) throws IOException {
        if (writeToken != null) {
            return writeToken;
        }
        String env = System.getenv("HEDGEROW_WRITE_TOKEN");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        return Files.exists(run.writeTokenFile()) ? Files.readString(run.writeTokenFile()).strip() : null;
    }
}
