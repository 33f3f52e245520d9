package io.hedgerow.cli;

import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafCommand;
import io.hedgerow.root.local.JavaLauncher;
import io.hedgerow.root.local.LocalCoordination;
import io.hedgerow.root.local.LocalClusterOptions;
import io.hedgerow.root.local.RestartPolicy;
import io.hedgerow.leaf.index.ServingLock;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.hedgerow.common.time.Durations;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/** The options {@code local} and {@code demo} share: the shape of the cluster and where data lives. */
final class ClusterOptions {
    @Option(names = "--leaves", defaultValue = "4", description = "Leaf processes (default: ${DEFAULT-VALUE}).")
    int leaves;

    @Option(names = "--partitions", defaultValue = "16",
            description = "Micro-partitions of the Europarl index, when it is built (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--replicas", defaultValue = "2",
            description = "Copies of each partition, on distinct leaves (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address every server binds (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "The root's HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--index", paramLabel = "DIR",
            description = "Serve this index instead of Europarl (a directory made by 'hedgerow index').")
    Path indexDir;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "${env:HEDGEROW_DATA:-data}",
            description = "Data folder: the Europarl index is built and cached here (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--run-dir", paramLabel = "DIR",
            description = "Where pid files and leaf logs go (default: <data>/run).")
    Path runDir;

    @Option(names = "--fault-injection",
            description = "Start the leaves with fault injection enabled, so POST /admin/leaves/{n}/delay can slow them "
                    + "down (for tests and demos; off by default).")
    boolean faultInjection;

    @Option(names = "--query-of-death", paramLabel = "TOKEN",
            description = "With --fault-injection: every leaf halts at once (exit status 70) when a query containing TOKEN"
                    + " (case-sensitive) reaches it, as a crash bug would (for tests and demos of canary requests).")
    String queryOfDeath;

    @Option(names = "--root-warmup", paramLabel = "DURATION", defaultValue = "90s",
            converter = LeafCommand.DurationConverter.class,
            description = "The longest the root searches through its own HTTP port, once its leaves are up, before"
                    + " /ready says ready and it reports serving: it stops sooner once its search rate stops rising (the"
                    + " JIT has compiled root and leaves), so the first users do not wait for the compiler; 0s for"
                    + " none (default: ${DEFAULT-VALUE}).")
    Duration rootWarmup;

    @Option(names = "--tls",
            description = "TLS on the links between root and leaves and between leaves, with a self-signed certificate"
                    + " made for the run by the JDK's keytool (<run dir>/tls-cert.pem). The HTTP API stays plain"
                    + " ('root' serves HTTPS with --tls-cert and --tls-key). Default: plaintext.")
    boolean tls;

    @Option(names = "--leaf-warmup", paramLabel = "DURATION", defaultValue = "30s",
            converter = LeafCommand.DurationConverter.class,
            description = "The longest each leaf runs warm-up searches before it serves, so the first queries do not"
                    + " wait for the JIT: it stops sooner once their rate stops rising; 0s for none (default:"
                    + " ${DEFAULT-VALUE}).")
    Duration leafWarmup;

    @Option(names = "--leaf-workers", paramLabel = "N", defaultValue = "0",
            description = "Search threads per leaf (default 0: the machine's cores shared out between the leaves,"
                    + " max(1, cores / leaves), so 4 leaves on 2 cores run 1 each). More than cores helps only when"
                    + " requests wait without using CPU, as injected delays do.")
    int leafWorkers;

    // split: a configuration file's list arrives as one text, a line each (ConfigFile); an ARG holds no line break.
    @Option(names = "--leaf-arg", paramLabel = "ARG", split = "\\n", hideParamSyntax = true,
            description = "Pass ARG on to every leaf's command line, e.g. --leaf-arg=--slice=0s or"
                    + " --leaf-arg=--queue-depth=batch=16 (see 'hedgerow leaf --help'); repeatable.")
    List<String> leafArguments = new ArrayList<>();

    @Option(names = "--no-leaf-restarts",
            description = "Leave a leaf process that dies down until POST /admin/leaves/{n}/restart. Default: restart it"
                    + " after a backoff (0.5-1 s, doubling to 30 s), and after 4 deaths within 2 minutes report a crash"
                    + " loop in /cluster and the log and restart it once a minute.")
    boolean noLeafRestarts;

    @Option(names = "--zk", paramLabel = "embedded|none|HOST:PORT[,...]", defaultValue = LocalCoordination.EMBEDDED,
            description = "Where each partition's primary, primary term and in-sync set are kept. 'embedded' (the"
                    + " default): in a ZooKeeper started as a child process (data in <run dir>/zk, kept from run to run;"
                    + " stopped last; one more JVM, of at most 256 MB of heap, and 2-4 s more to start on two busy cores), so a root started"
                    + " again (after a crash too) promotes only a copy that holds every acknowledged write; leaves then"
                    + " keep their ports from run to run (<run dir>/leaf-ports), and each is given --zk too: it"
                    + " registers as an ephemeral node (session timeout 4 s: a leaf paused 150 ms every second keeps"
                    + " it) and publishes its served load, which the roots' placement reads. HOST:PORT[,...]: the same"
                    + " on a running ensemble, which other roots and leaves can join. 'none': the root keeps them in"
                    + " its memory only (no ZooKeeper process; a restarted root trusts the most advanced copy that"
                    + " answers).")
    String zk;

    @Option(names = "--zk-port", paramLabel = "PORT", defaultValue = "0",
            description = "With --zk embedded: the port it listens on; 0 (the default) for a free one, chosen at the"
                    + " first start, kept in <run dir>/zk-port and asked for again by the next on the same run directory"
                    + " while it is free, so two local clusters never collide.")
    int zkPort;

    @Option(names = "--zk-cluster", paramLabel = "NAME",
            description = "With --zk: the cluster's name, its znode under /hedgerow (default: local-<index>-<leaves>x"
                    + "<replicas>, e.g. local-europarl-4x2, so that a cluster of another index or shape started on the"
                    + " same run directory keeps state of its own instead of finding copies it does not have in sync).")
    String zkCluster;

    @Mixin
    HedgeOptions hedge;

    @Mixin
    TailOptions tail;

    @Mixin
    IntakeOptions intake;

    @Mixin
    AdaptOptions adapt;

    @Mixin
    PlacementOptions placement;

    @Mixin
    FanOutOptions fanOut;

    /** Whether {@code name} was given as a flag or by the file. */
    private static boolean setHere(CommandSpec command, String name, ConfigFile file) {
        OptionSpec option = command.findOption(name);
        ConfigDefaultProvider provider = ConfigDefaultProvider.of(command);
        return !option.originalStringValues().isEmpty()
                || provider != null && file.value(provider.keys().keyOf(option)) != null;
    }

    RunDirectory runDirectory() {
        return new RunDirectory(runDir != null ? runDir : dataDir.resolve("run"));
    }

    /** The index to serve: --index if given, else Europarl, built first if missing. */
    Path resolveIndex(PrintStream out) throws IOException {
        // Checked before the index, whose first build takes minutes.
        if (queryOfDeath != null && !faultInjection) {
            throw new IllegalArgumentException("--query-of-death needs --fault-injection (fault injection is off unless "
                    + "enabled)");
        }
        // Before the index is touched: a running cluster's index is never rebuilt or reopened under it.
        runDirectory().requireNoneRunning();
        // And whatever run directory another cluster uses: its lock in the index directory says so.
        ServingLock.requireNotServed(indexDir != null ? indexDir : dataDir.resolve("europarl"));
        if (indexDir != null) {
            IndexManifest manifest = new PartitionStore(indexDir).readManifest();
            out.printf("Index %s: %,d documents in %d partitions (%s)%n", manifest.name(), manifest.docCount(),
                    manifest.partitions(), indexDir);
            return indexDir;
        }
        PartitionStore store = IndexBuilder.ensureEuroparl(dataDir, partitions, out);
        IndexManifest manifest = store.readManifest();
        out.printf("Index europarl: %,d documents in %d partitions (%s)%n", manifest.docCount(), manifest.partitions(),
                store.dir());
        return store.dir();
    }

    /**
     * The cluster's options. With a configuration file ({@code command}'s), every leaf gets the file
     * ({@code --config}) and reads its leaf section, under the flags given here; {@code leaf.workers} and
     * {@code leaf.warmup} apply when {@code --leaf-workers} and {@code --leaf-warmup} are set neither by a
     * flag nor by the file's local section. The leaves' JVMs get the leaf role's options ({@link JvmOptions}).
     */
    LocalClusterOptions toOptions(Path index, CommandSpec command) {
        ConfigDefaultProvider provider = ConfigDefaultProvider.of(command);
        ConfigFile file = provider == null ? null : provider.fileFor(command);
        Map<String, String> env = provider == null ? Map.of() : provider.env();
        int workers = leafWorkers;
        Duration leafWarmupTime = leafWarmup;
        List<String> leafArgs = new ArrayList<>();
        if (file != null) {
            leafArgs.addAll(List.of("--config", file.path().toAbsolutePath().toString()));
            if (!setHere(command, "--leaf-workers", file) && file.value("leaf.workers") != null) {
                workers = Integer.parseInt(file.value("leaf.workers"));
            }
            if (!setHere(command, "--leaf-warmup", file) && file.value("leaf.warmup") != null) {
                leafWarmupTime = Durations.parse(file.value("leaf.warmup"));
            }
        }
        leafArgs.addAll(leafArguments);
        JavaLauncher launcher = JavaLauncher.sameJvm(System.getProperty("java.class.path"))
                .withOptions(JvmOptions.resolve("leaf", env, file).options());
        return new LocalClusterOptions(index, leaves, replicas, host, port, runDirectory(),
                launcher, Duration.ofSeconds(60), faultInjection,
                leafWarmupTime, hedge.toSettings(), tail.toSettings(), workers).withQueryOfDeath(queryOfDeath)
                .withLeafArguments(leafArgs).withAdmission(intake.toAdmission()).withAdminToken(intake.adminToken())
                .withWriteToken(intake.writeToken())
                .withBatchAdmission(intake.toBatchAdmission())
                .withSupervision(noLeafRestarts ? null : RestartPolicy.Settings.defaults())
                .withAdaptation(adapt.toSettings())
                .withPlacement(placement.toSettings())
                .withTls(tls)
                .withLeafBatching(fanOut.leafBatching())
                .withCoordination(LocalCoordination.choose(zk, zkPort,
                        zkCluster != null ? zkCluster : defaultClusterName(index, leaves, replicas)).orElse(null));
    }

    /**
     * {@code local-<index>-<leaves>x<replicas>}: the stored state of one index served in one shape.
     * Under one name, a cluster of 2 leaves started after one of 4 on the same run directory found
     * partitions whose in-sync copies were on leaves it does not have, and refused their writes.
     */
    static String defaultClusterName(Path index, int leaves, int replicas) {
        String name = index.toAbsolutePath().normalize().getFileName() == null ? "index"
                : index.toAbsolutePath().normalize().getFileName().toString().replaceAll("[^A-Za-z0-9_.-]", "-");
        String suffix = "-" + leaves + "x" + replicas;
        int room = 64 - "local-".length() - suffix.length();
        return "local-" + (name.length() > room ? name.substring(0, room) : name) + suffix;
    }
}
