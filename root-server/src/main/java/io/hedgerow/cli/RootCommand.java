package io.hedgerow.cli;

import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.root.write.WriteSettings;

import io.hedgerow.common.net.ClusterSecret;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.IndexProbe;
import io.hedgerow.root.write.WriteSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code hedgerow root}: runs a root server against leaves that are already running. */
@Command(name = "root", mixinStandardHelpOptions = true,
        description = {"Run a root server: the HTTP API in front of running leaf servers.",
                "It assigns partitions to the leaves, fans each query out and merges the hits.",
                "Without --index it first asks the leaves which index they serve (name, partitions, parser);",
                "leaves that serve another index, or speak another protocol version, get no traffic.",
                "Runs in the foreground until Ctrl-C."})
final class RootCommand implements Callable<Integer> {
    /** How long the root waits for its leaves: to learn the index from them, then to be ready. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
    /** How long a root without --leaves waits for the first leaves to register in ZooKeeper. */
    private static final Duration REGISTERED_PATIENCE = Duration.ofSeconds(60);
    /** Leaf slots of a root with --zk unless --leaf-slots says otherwise (at least its --leaves). */
    static final int DEFAULT_LEAF_SLOTS = 16;

    @Spec
    private CommandSpec spec;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "90s",
            converter = io.hedgerow.leaf.server.LeafCommand.DurationConverter.class,
            description = "The longest the root searches through its own HTTP port before /ready says ready; it stops"
                    + " sooner once its search rate stops rising, so the first users do not wait for the JIT; 0s for"
                    + " none (default: ${DEFAULT-VALUE}).")
    private Duration warmup;

    @Option(names = "--slow-query", paramLabel = "DURATION", defaultValue = "1s",
            converter = io.hedgerow.leaf.server.LeafCommand.DurationConverter.class,
            description = "Searches that take at least this long go to the slow-query log (logger hedgerow.slowquery)"
                    + " with their explain trace; 0s for none (default: ${DEFAULT-VALUE}).")
    private Duration slowQuery;

    @Option(names = "--leaves", split = ",", paramLabel = "HOST:PORT",
            description = "Leaf addresses, comma-separated, e.g. 127.0.0.1:9001,127.0.0.1:9002: they fill the first"
                    + " leaf slots. Required without --zk. With --zk it may be left out: the root then waits (up to"
                    + " 60 s) for at least --replicas leaves to register in ZooKeeper and starts with those.")
    private List<String> leaves;

    @Option(names = "--leaf-slots", paramLabel = "N",
            description = "With --zk: how many leaves this root can hold (1.." + ClusterConfig.MAX_LEAF_SLOTS
                    + "). --leaves fill the first slots; a leaf that registers in ZooKeeper at run time (leaf --zk)"
                    + " at another address takes the first free slot: the root connects to it and the placement"
                    + " moves copies onto it. A slot keeps its leaf's address after it leaves (a restart takes it"
                    + " back); a leaf that finds none free takes over one whose leaf left ZooKeeper longer ago than"
                    + " --re-replicate-after and holds no copy (the placement gives up a gone leaf's copies for it)."
                    + " Default: with --zk, max(16, the --leaves count); without,"
                    + " the --leaves count (no leaf can join).")
    private Integer leafSlots;

    @Option(names = "--index", paramLabel = "DIR",
            description = "Index directory to read the index from (its index.json); without it the root learns the"
                    + " index from the leaves when it starts.")
    private Path indexDir;

    @Option(names = "--index-name", paramLabel = "NAME",
            description = "Check that the index is this one: the root refuses to start otherwise (default: whatever"
                    + " the index is).")
    private String indexName;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Check that the index has N partitions: the root refuses to start otherwise (default:"
                    + " whatever the index has).")
    private Integer partitions;

    @Option(names = "--replicas", defaultValue = "2",
            description = "Copies of each partition, on distinct leaves (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "HTTP address (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--timeout-ms", defaultValue = "1000",
            description = "Default query timeout in milliseconds (default: ${DEFAULT-VALUE}).")
    private long timeoutMillis;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "The cluster's shared secret, said in every Hello to a leaf (leaves started with"
                    + " --cluster-secret-file serve no root without it). Without it, the environment variable "
                    + ClusterSecret.ENV + "; without either, none.")
    private Path clusterSecretFile;

    @Option(names = "--tls-trust", paramLabel = "PEM",
            description = "Dial the leaves over TLS, trusting the certificates in this PEM file (the leaves serve TLS"
                    + " with --tls-cert and --tls-key); each leaf's certificate must name the address it is dialled"
                    + " at. Default: plaintext.")
    private Path tlsTrust;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "Serve the HTTP API as HTTPS with this certificate chain (PEM), with --tls-key. Default:"
                    + " plain HTTP.")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key of --tls-cert (PEM, PKCS#8).")
    private Path tlsKey;

    @Option(names = "--zk", paramLabel = "HOST:PORT[,...]",
            description = "Keep each partition's primary, primary term and in-sync set in ZooKeeper at this address"
                    + " (an ensemble's host:port list, or './hedgerow zk'): read at start, changed only by"
                    + " compare-and-set, shared with every root given the same --zk and --zk-cluster, and every write"
                    + " carries the term, which the leaves check. The placement too: one root, elected, moves"
                    + " partition copies and stores its plan there; the others route by that plan and take over from"
                    + " it. And the leaves' membership: a leaf given the same --zk (leaf --zk) registers there; one whose"
                    + " node vanished is down for placement at once, and the placement reads the load the leaves"
                    + " publish (every root's traffic). Without it the root keeps all this in its memory, as a single"
                    + " root does.")
    private String zk;

    @Option(names = "--zk-cluster", paramLabel = "NAME", defaultValue = "default",
            description = "With --zk: the cluster's name, its znode under /hedgerow (default: ${DEFAULT-VALUE}).")
    private String zkCluster;

    @Mixin
    private HedgeOptions hedge;

    @Mixin
    private TailOptions tail;

    @Mixin
    private IntakeOptions intake;

    @Mixin
    private AdaptOptions adapt;

    @Mixin
    private PlacementOptions placement;

    @Mixin
    private FanOutOptions fanOut;

    private TlsFiles httpTls() {
        if (tlsCert == null && tlsKey == null) {
            return null;
        }
        if (tlsCert == null || tlsKey == null) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together (expected: both)");
        }
        return new TlsFiles(tlsCert, tlsKey, null);
    }

    @Override
    public Integer call() throws Exception {
        try {
            long rootId = ClusterState.randomRootId();
            CoordinationSettings coordination = zk == null ? null : CoordinationSettings.of(zk, zkCluster);
            if (leafSlots != null && zk == null) {
                throw new IllegalArgumentException("--leaf-slots " + leafSlots + " without --zk (expected: --zk, where"
                        + " leaves register to take the slots)");
            }
            if (leaves == null || leaves.isEmpty()) {
                if (coordination == null) {
                    throw new IllegalArgumentException("no --leaves and no --zk (expected: --leaves HOST:PORT,..., or"
                            + " --zk to take the leaves registered there)");
                }
                spec.commandLine().getOut().printf("waiting for %d leaves to register in ZooKeeper (cluster '%s')%n",
                        replicas, zkCluster);
                spec.commandLine().getOut().flush();
                try {
                    leaves = io.hedgerow.root.cluster.RegisteredLeaves.await(coordination, replicas,
                            REGISTERED_PATIENCE);
                } catch (io.hedgerow.coordination.CoordinationException e) {
                    throw new IOException(e.getMessage(), e);
                }
                spec.commandLine().getOut().printf("leaves registered in ZooKeeper: %s%n", String.join(",", leaves));
            }
            int slots = leafSlots != null ? leafSlots
                    : coordination == null ? leaves.size() : Math.max(DEFAULT_LEAF_SLOTS, leaves.size());
            String clusterSecret = ClusterSecret.fromFileOrEnvironment(clusterSecretFile, System.getenv());
            IndexManifest manifest;
            String source;
            if (indexDir != null) {
                manifest = new PartitionStore(indexDir).readManifest();
                source = "read from " + indexDir;
            } else {
                manifest = IndexProbe.learn(leaves, rootId, clusterSecret, tlsTrust, READY_TIMEOUT);
                source = "learnt from the leaves";
            }
            if (partitions != null && partitions != manifest.partitions()) {
                throw new IllegalArgumentException("--partitions " + partitions + ", but index '" + manifest.name()
                        + "' (" + source + ") has " + manifest.partitions() + " partitions (expected: equal, or leave"
                        + " --partitions out)");
            }
            if (indexName != null && !indexName.equals(manifest.name())) {
                throw new IllegalArgumentException("--index-name '" + indexName + "', but the index (" + source
                        + ") is '" + manifest.name() + "' (expected: equal, or leave --index-name out)");
            }
            ClusterConfig config = ClusterConfig.of(manifest, leaves, replicas)
                    .withDefaultTimeout(Duration.ofMillis(timeoutMillis))
                    .withHedge(hedge.toSettings())
                    .withTail(tail.toSettings())
                    .withBatchAdmission(intake.toBatchAdmission())
                    .withAdaptation(adapt.toSettings())
                    .withPlacement(placement.toSettings())
                    .withLeafBatching(fanOut.leafBatching())
                    .withClusterSecret(clusterSecret)
                    .withTlsTrust(tlsTrust)
                    .withLeafSlots(slots);
            spec.commandLine().getOut().printf("index '%s': %,d documents in %d partitions (%s)%n", manifest.name(),
                    manifest.docCount(), manifest.partitions(), source);
            HttpSettings http = HttpSettings.defaults(host, port).withAdmission(intake.toAdmission())
                    .withAdminToken(intake.adminToken()).withWriteToken(intake.writeToken()).withTls(httpTls())
                    .withSlowQuery(slowQuery);
            WriteSettings writes = WriteSettings.defaults().withCoordination(coordination);
            RootServer root = RootServer.start(config, http, READY_TIMEOUT, null, rootId, writes);
            CountDownLatch stopped = Shutdown.closeOnExit(root, root::stopReport);
            spec.commandLine().getOut().println(root.warmUp(warmup));
            spec.commandLine().getOut().printf("root serving %s://%s:%d/ over %d leaves%s%s%n", tlsCert != null ? "https" : "http",
                    host, root.httpPort(), leaves.size(), slots > leaves.size() ? " (" + slots + " leaf slots: more"
                            + " leaves may join through ZooKeeper)" : "", tlsTrust != null ? " (TLS to the leaves)" : "");
            spec.commandLine().getOut().flush();
            stopped.await();
            return 0;
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
    }
}
