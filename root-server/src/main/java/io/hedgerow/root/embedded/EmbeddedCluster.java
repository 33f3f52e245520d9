package io.hedgerow.root.embedded;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.common.net.ClusterSecret;
import io.hedgerow.leaf.index.DocumentSource;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.JsonlSource;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.http.LeafAdmin;
import io.hedgerow.root.placement.PlacementSettings;
import io.hedgerow.root.tail.TailSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * A whole Hedgerow cluster inside this JVM: an index (built from documents, a JSON-lines file or
 * the bundled Europarl corpus, or one that already exists), N leaf servers and a root, talking over
 * real loopback sockets. For applications that embed Hedgerow as their search backend, and for
 * tests. Closing it stops every server.
 *
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder(Path.of("data"))
 *         .europarl()
 *         .leaves(4).partitions(16).replicas(2)
 *         .start()) {
 *     SearchResult result = cluster.client().search("european parliament");
 * }
 * }</pre>
 */
public final class EmbeddedCluster implements AutoCloseable {
    private final PartitionStore store;
    private final IndexManifest manifest;
    private final List<LeafServer> leaves;
    private final RootServer root;

    private EmbeddedCluster(PartitionStore store, IndexManifest manifest, List<LeafServer> leaves, RootServer root) {
        this.store = store;
        this.manifest = manifest;
        this.leaves = leaves;
        this.root = root;
    }

    /** A cluster whose index lives under {@code dataDir}. */
    public static Builder builder(Path dataDir) {
        return new Builder(dataDir);
    }

    /** Searches the cluster; thread-safe. */
    public HedgerowClient client() {
        return root.client();
    }

    public RootServer root() {
        return root;
    }

    /** The token the HTTP API's admin routes require ({@code Authorization: Bearer <token>}). */
    public String adminToken() {
        return root.adminToken();
    }

    /** The HTTP API's port; the builder must have asked for one with {@link Builder#http(int)}. */
    public int httpPort() {
        return root.httpPort();
    }

    public PartitionStore index() {
        return store;
    }

    public IndexManifest manifest() {
        return manifest;
    }

    /** The leaf servers, in leaf order; stop one with {@link LeafServer#close()} to test failover. */
    public List<LeafServer> leaves() {
        return leaves;
    }

    @Override
    public void close() {
        root.close();
        leaves.forEach(LeafServer::close);
    }

    /** Settings of an embedded cluster; every one has a default but the index. */
    public static final class Builder {
        private final Path dataDir;
        private IndexSource source;
        private int leaves = 3;
        private int partitions = IndexOptions.DEFAULT_PARTITIONS;
        private int replicas = 2;
        private int httpPort = -1;
        private Duration defaultTimeout = Duration.ofSeconds(5);
        private PrintStream progress;
        private boolean faultInjection;
        private HedgeSettings hedge = HedgeSettings.defaults();
        private UnaryOperator<LeafConfig> leafSettings = UnaryOperator.identity();
        private TailSettings tail = TailSettings.defaults();
        private AdaptationSettings adaptation = AdaptationSettings.defaults();
        private PlacementSettings placement = PlacementSettings.defaults();
        private AdmissionSettings admission = AdmissionSettings.defaults();
        private String adminToken = HttpSettings.newAdminToken();
        private String writeToken;
        private boolean leafBatching = false;

        /** The root's admission control (default: {@link AdmissionSettings#defaults()}). */
        public Builder admission(AdmissionSettings settings) {
            this.admission = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The token the admin routes require (default: a new random one, see {@link EmbeddedCluster#adminToken()}). */
        public Builder adminToken(String token) {
            this.adminToken = token;
            return this;
        }

        /** The token HTTP writes to {@code /documents} require (default: none; the Java API needs none). */
        public Builder writeToken(String token) {
            this.writeToken = token;
            return this;
        }

        private Builder(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
        }

        /** Serve the bundled Europarl corpus, indexed into {@code <dataDir>/europarl} unless already there. */
        public Builder europarl() {
            source = (dir, partitions, out) -> IndexBuilder.ensureEuroparl(dir, partitions, out);
            return this;
        }

        /** Serve these documents, indexed afresh into {@code <dataDir>/<name>}. */
        public Builder documents(String name, IndexConfig config, List<SourceDocument> documents) {
            List<SourceDocument> copy = List.copyOf(documents);
            source = (dir, partitions, out) -> build(dir.resolve(name), name, config, partitions, out,
                    DocumentSource.of(name, copy));
            return this;
        }

        /** Serve a JSON-lines file (one object with an "id" and string fields per line), indexed afresh. */
        public Builder jsonl(String name, IndexConfig config, Path file) {
            source = (dir, partitions, out) -> {
                try (DocumentSource lines = JsonlSource.open(file, config)) {
                    return build(dir.resolve(name), name, config, partitions, out, lines);
                }
            };
            return this;
        }

        /** Serve an index that already exists (a directory holding {@code index.json}). */
        public Builder existingIndex(Path indexDir) {
            source = (dir, partitions, out) -> new PartitionStore(indexDir);
            return this;
        }

        public Builder leaves(int leaves) {
            this.leaves = leaves;
            return this;
        }

        /** Partitions when the index is built here (default 16); an existing index keeps its own. */
        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        public Builder replicas(int replicas) {
            this.replicas = replicas;
            return this;
        }

        /** Also serve the HTTP API on loopback at {@code port} (0 for a free port). */
        public Builder http(int port) {
            this.httpPort = port;
            return this;
        }

        /** How long a query waits for partitions when it names no timeout (default 5 s). */
        public Builder defaultTimeout(Duration timeout) {
            this.defaultTimeout = timeout;
            return this;
        }

        /**
         * Start the leaves with fault injection enabled (off by default), for tests and demos: then
         * {@link RootServer#leafFaults()} can slow a leaf down, and the HTTP API, when asked for,
         * offers {@code /admin/leaves/{n}/delay} and {@code /stall}. Without it the HTTP API has no
         * {@code /admin}.
         */
        public Builder faultInjection(boolean enabled) {
            this.faultInjection = enabled;
            return this;
        }

        /** The root's hedged and tied requests: default mode, delays, budget (default: {@link HedgeSettings#defaults()}, hedged). */
        public Builder hedge(HedgeSettings settings) {
            this.hedge = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Adjusts every leaf's settings (scheduling, time-slicing, cost guards) from
         * {@link LeafConfig#defaults} with fault injection as {@link #faultInjection} says.
         */
        public Builder leafSettings(UnaryOperator<LeafConfig> settings) {
            this.leafSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The root's canaries, good-enough cutoff and result cache (default: {@link
         * TailSettings#defaults()}: one canary, cutoff at 90% coverage, cache on).
         */
        public Builder tail(TailSettings settings) {
            this.tail = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The root's replica choice, stall detection and probation (default: {@link AdaptationSettings#defaults()}, all on). */
        public Builder adaptation(AdaptationSettings settings) {
            this.adaptation = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The root's re-replication, selective replication and rebalancing (default: {@link PlacementSettings#defaults()}). */
        public Builder placement(PlacementSettings settings) {
            this.placement = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Whether the root sends a search's first copies for one leaf in one message (default: off;
         * {@link io.hedgerow.root.cluster.ClusterConfig#leafBatching()}).
         */
        public Builder leafBatching(boolean on) {
            this.leafBatching = on;
            return this;
        }

        /** Where to report indexing progress; silent by default. */
        public Builder progress(PrintStream out) {
            this.progress = out;
            return this;
        }

        /**
         * Builds or opens the index, starts the leaves and the root, and waits until the root
         * reaches every leaf.
         */
        public EmbeddedCluster start() throws IOException, InterruptedException {
            if (source == null) {
                throw new IllegalStateException("no index: call europarl(), documents(), jsonl() or existingIndex()");
            }
            PrintStream out = progress != null ? progress : new PrintStream(PrintStream.nullOutputStream());
            PartitionStore store = source.open(dataDir, partitions, out);
            IndexManifest manifest = store.readManifest();
            List<LeafServer> started = new ArrayList<>();
            // Its leaves serve only this cluster's root (and each other, for twin cancels).
            String clusterSecret = ClusterSecret.generate();
            try {
                for (int i = 0; i < leaves; i++) {
                    started.add(LeafServer.start(leafSettings.apply(LeafConfig.defaults(store.dir())
                            .withFaultInjection(faultInjection).withClusterSecret(clusterSecret))));
                }
                ClusterConfig config = ClusterConfig.of(manifest, started.stream().map(LeafServer::address).toList(),
                        replicas)
                        .withDefaultTimeout(defaultTimeout)
                        .withHedge(hedge)
                        .withTail(tail)
                        .withAdaptation(adaptation)
                        .withPlacement(placement)
                        .withLeafBatching(leafBatching)
                        .withClusterSecret(clusterSecret);
                // Its leaves share this JVM, so there is no process to restart; delays are all /admin offers.
                LeafAdmin admin = !faultInjection ? null : leaf -> CompletableFuture.failedFuture(new UnsupportedOperationException(
                        "restarting a leaf needs a local cluster ('hedgerow local'); an embedded cluster's leaves run in its JVM"));
                HttpSettings http = httpPort < 0 ? null : HttpSettings.defaults("127.0.0.1", httpPort)
                        .withAdmission(admission).withAdminToken(adminToken).withWriteToken(writeToken);
                RootServer root = RootServer.start(config, http, Duration.ofSeconds(30), admin, ClusterState.randomRootId());
                root.warmUp(Duration.ZERO); // its leaves warm their partitions; an embedding application warms its own path
                return new EmbeddedCluster(store, manifest, List.copyOf(started), root);
            } catch (IOException | InterruptedException | RuntimeException e) {
                started.forEach(LeafServer::close);
                throw e;
            }
        }

        private static PartitionStore build(Path dir, String name, IndexConfig config, int partitions, PrintStream out,
                DocumentSource documents) throws IOException {
            PartitionStore store = new PartitionStore(dir);
            IndexBuilder builder = new IndexBuilder(IndexOptions.defaults().withPartitions(partitions),
                    IndexProgress.lines(out::println));
            out.println(builder.build(store, name, config, documents).render());
            return store;
        }
    }

    /** Where the index comes from. */
    @FunctionalInterface
    private interface IndexSource {
        PartitionStore open(Path dataDir, int partitions, PrintStream progress) throws IOException;
    }
}
