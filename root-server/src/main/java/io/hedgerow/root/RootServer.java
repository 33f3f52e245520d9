package io.hedgerow.root;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.common.net.TlsContexts;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Durations;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.admission.AdmissionSettings;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafMembers;
import io.hedgerow.root.cluster.SlotReuse;
import io.hedgerow.root.fanout.FanOut;
import io.hedgerow.root.fault.LeafFaults;
import io.hedgerow.root.http.DrainOutcome;
import io.hedgerow.root.http.HttpApiServer;
import io.hedgerow.root.http.HttpSettings;
import io.hedgerow.root.http.LeafAdmin;
import io.hedgerow.root.http.Readiness;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.placement.PlacementService;
import io.hedgerow.root.placement.shared.SharedPlacement;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.WriteSettings;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A root: connections to the leaves, the fan-out engine, and (optionally) the HTTP API, all on
 * one group of event loops. Closing it stops everything it started.
 */
public final class RootServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RootServer.class.getName());

    private final EventLoopGroup group;
    private final FanOut fanOut;
    private final RootMetrics metrics;
    private final HttpApiServer http;
    private final AdmissionControl admission;
    private final Readiness readiness;
    private final Duration drainTimeout;
    private final String adminToken;
    private final DocumentWriter documents;
    private final PlacementService placement;
    /** With {@code --zk}: the placement shared with the other roots, run by the elected one; else null. */
    private final SharedPlacement sharedPlacement;
    /** With {@code --zk}: this root's watch on the leaves' membership; else null. */
    private final LeafMembers members;
    private volatile String stopReport;

    private RootServer(EventLoopGroup group, FanOut fanOut, RootMetrics metrics, HttpApiServer http,
            AdmissionControl admission, Readiness readiness, Duration drainTimeout, String adminToken,
            DocumentWriter documents, PlacementService placement, SharedPlacement sharedPlacement,
            LeafMembers members) {
        this.placement = placement;
        this.members = members;
        this.sharedPlacement = sharedPlacement;
        this.adminToken = adminToken;
        this.documents = documents;
        this.group = group;
        this.fanOut = fanOut;
        this.metrics = metrics;
        this.http = http;
        this.admission = admission;
        this.readiness = readiness;
        this.drainTimeout = drainTimeout;
    }

    /**
     * Starts a root and waits up to {@code readyTimeout} for every leaf to accept its partitions.
     * It serves even when some leaves are not up yet (their partitions fail over to replicas, and
     * connections keep retrying in the background).
     *
     * @param httpHost where the HTTP API listens; null for no HTTP API (embedded use)
     * @param httpPort the HTTP port; 0 picks a free one
     */
    public static RootServer start(ClusterConfig config, String httpHost, int httpPort, Duration readyTimeout)
            throws IOException, InterruptedException {
        return start(config, httpHost, httpPort, readyTimeout, null);
    }

    /**
     * Like {@link #start(ClusterConfig, String, int, Duration)}, with leaf operations for
     * {@code /admin} (only a root that started its leaves, as a local cluster does, has them): with
     * {@code admin} non-null the HTTP API also offers {@code /admin/leaves/{n}/restart} and
     * {@code /admin/leaves/{n}/delay} and {@code /admin/leaves/{n}/stall}.
     */
    public static RootServer start(ClusterConfig config, String httpHost, int httpPort, Duration readyTimeout,
            LeafAdmin admin) throws IOException, InterruptedException {
        return start(config, httpHost, httpPort, readyTimeout, admin, ClusterState.randomRootId());
    }

    /**
     * As {@link #start(ClusterConfig, String, int, Duration, LeafAdmin)}, with this root's id given
     * (it must differ from every other root's of the same leaves: a random one does).
     */
    public static RootServer start(ClusterConfig config, String httpHost, int httpPort, Duration readyTimeout,
            LeafAdmin admin, long rootId) throws IOException, InterruptedException {
        return start(config, httpHost == null ? null : HttpSettings.defaults(httpHost, httpPort), readyTimeout, admin, rootId);
    }

    /**
     * As {@link #start(ClusterConfig, String, int, Duration, LeafAdmin, long)}, with the HTTP API's
     * settings in full (admission control, connection limits, admin token, TLS); null for no HTTP API.
     */
    /** How long a start waits, at most, for the write path to compare every partition's replicas. */
    private static final Duration RECONCILE_PATIENCE = Duration.ofSeconds(10);

    public static RootServer start(ClusterConfig config, HttpSettings httpSettings, Duration readyTimeout,
            LeafAdmin admin, long rootId) throws IOException, InterruptedException {
        return start(config, httpSettings, readyTimeout, admin, rootId, WriteSettings.defaults());
    }

    /**
     * As {@link #start(ClusterConfig, HttpSettings, Duration, LeafAdmin, long)}, with the write path's
     * settings (with {@link WriteSettings#coordination}: the partitions' states in ZooKeeper).
     */
    public static RootServer start(ClusterConfig config, HttpSettings httpSettings, Duration readyTimeout,
            LeafAdmin admin, long rootId, WriteSettings writeSettings) throws IOException, InterruptedException {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(config.ioThreads(), "root-io");
        LeafMembers members = null;
        try {
            ClusterState cluster = new ClusterState(config, FanOut.connectionsPerLeaf(group), Ticker.system(), rootId);
            if (writeSettings.coordination() != null) {
                // The leaves registered in ZooKeeper: the placement's second source of liveness, and its load.
                try {
                    // A slot is kept for its leaf's return as long as the placement keeps its copies counting.
                    members = LeafMembers.start(writeSettings.coordination(), cluster, Clock.systemUTC(),
                            SlotReuse.of(config.placement().grace()));
                } catch (CoordinationException e) {
                    throw new IOException("the leaves' membership is in ZooKeeper (--zk): " + e.getMessage(), e);
                }
            }
            boolean sharesPlacement = config.placement().anyOn() && writeSettings.coordination() != null;
            if (sharesPlacement) {
                try {
                    LOG.log(System.Logger.Level.INFO, "routing by {0}",
                            SharedPlacement.routeByStoredPlan(writeSettings.coordination(), cluster));
                } catch (CoordinationException e) {
                    throw new IOException("the placement plan is shared through ZooKeeper (--zk): " + e.getMessage(), e);
                }
            }
            RootMetrics metrics = new RootMetrics(cluster);
            metrics.bindProcess(); // JVM, GC and build_info meters; closed with the root
            FanOut fanOut = new FanOut(cluster, group, transport,
                    DispatchPolicy.of(config.adaptation(), FanOut.connectionsPerLeaf(group)), metrics,
                    Ticker.system());
            fanOut.connect();
            if (!fanOut.awaitReady(readyTimeout)) {
                LOG.log(System.Logger.Level.WARNING, "not every leaf is ready; serving anyway{0}", refusals(cluster));
            }
            AdmissionControl admission = new AdmissionControl(
                    httpSettings == null ? AdmissionSettings.off() : httpSettings.admission());
            metrics.watch(admission);
            metrics.onLeafBusy(admission::leafBusy);
            Readiness readiness = new Readiness(cluster); // not ready until warmUp
            DocumentWriter documents = new DocumentWriter(cluster, group, transport, writeSettings,
                    Ticker.system(), fanOut.tail().cache()::invalidateAll, metrics.registry());
            // Writes wait until each partition's replicas are compared, which needs every replica's
            // answer: compared now, while the leaves just found ready are up, a leaf lost right after
            // start costs its partitions nothing. A leaf down at start keeps its partitions' writes
            // refused until it answers; the root serves searches meanwhile.
            if (!documents.awaitReconciled(readyTimeout.compareTo(RECONCILE_PATIENCE) < 0 ? readyTimeout
                    : RECONCILE_PATIENCE)) {
                LOG.log(System.Logger.Level.WARNING, "not every partition's replicas answered their last seq; writes"
                        + " to those partitions are refused until they do");
            }
            PlacementService placement = null;
            if (config.placement().anyOn() && !sharesPlacement) {
                placement = new PlacementService(cluster, config.placement(), Ticker.system(), fanOut::reassign,
                        documents).start();
                placement.registerMeters(metrics.registry());
                cluster.placementReport(placement::report);
            }
            HttpApiServer http = httpSettings == null ? null
                    : HttpApiServer.start(group, transport, httpSettings, fanOut::search, cluster, metrics, admission,
                            readiness, admin, fanOut.leafFaults(), fanOut.tail(), documents);
            if (http != null) {
                metrics.watchConnections(http::openConnections, http::refusedConnections);
            }
            SharedPlacement shared = null;
            if (sharesPlacement) {
                // Roots sharing ZooKeeper share one plan: the elected leader's (named here for /cluster,
                // with the HTTP address, so it starts after the HTTP server; a single root's starts before).
                String self = "root-" + Long.toHexString(rootId) + (http == null ? "" : "@" + http.host() + ":"
                        + http.port());
                try {
                    shared = SharedPlacement.start(writeSettings.coordination(), self, cluster, config.placement(),
                            Ticker.system(), fanOut::reassign, documents);
                } catch (CoordinationException e) {
                    throw new IOException("the placement plan is shared through ZooKeeper (--zk): " + e.getMessage(), e);
                }
                shared.registerMeters(metrics.registry());
            }
            Duration drain = httpSettings == null ? Duration.ZERO : httpSettings.drainTimeout();
            return new RootServer(group, fanOut, metrics, http, admission, readiness, drain,
                    httpSettings == null ? null : httpSettings.adminToken(), documents, placement, shared, members);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (members != null) {
                members.close();
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /**
     * Warms the request path by searching through this root's own HTTP port until the searches'
     * rate stops rising, or for {@code longest} at most ({@link RootWarmup}), then lets {@code
     * /ready} say ready; {@code /ready} says "warming" meanwhile. Without an HTTP API, or with a zero
     * duration, it only marks the root warm.
     *
     * @return what it did, for the log
     */
    public String warmUp(Duration longest) throws InterruptedException {
        if (http == null || longest.isZero()) {
            readiness.markWarm();
            return "no warm-up";
        }
        readiness.warming("warming up: searching through its own HTTP port until its search rate stops rising"
                + " and the JIT compilers of the root and its leaves go quiet"
                + " (at most " + Durations.format(longest) + ")");
        SSLContext tls;
        try {
            tls = http.tls() == null ? null : TlsContexts.pinned(http.tls().certificateChain());
        } catch (IOException e) {
            readiness.markWarm();
            return "no warm-up: " + e.getMessage();
        }
        RootWarmup.Outcome outcome;
        try (CompileTimes compileTimes = new CompileTimes(fanOut.cluster());
                RootWarmup warmup = new RootWarmup(http.host(), http.port(), tls, System::nanoTime, compileTimes)) {
            outcome = warmup.run(longest);
        }
        readiness.markWarm();
        return RootWarmup.describe(outcome, longest);
    }

    private static String refusals(ClusterState cluster) {
        StringBuilder out = new StringBuilder();
        cluster.leaves().stream().filter(leaf -> leaf.refusal() != null)
                .forEach(leaf -> out.append("; leaf ").append(leaf.name()).append(" is refused: ").append(leaf.refusal()));
        return out.toString();
    }

    /** Searches from Java, without HTTP. */
    public HedgerowClient client() {
        return fanOut;
    }

    /** Adds, updates, deletes and reads documents on the running cluster (live ingestion). */
    public DocumentWriter documents() {
        return documents;
    }

    /** Fault injection in the leaves; they obey only when started with fault injection enabled. */
    public LeafFaults leafFaults() {
        return fanOut.leafFaults();
    }

    public ClusterState cluster() {
        return fanOut.cluster();
    }

    /** The canary timeout, blocklist, good-enough cutoff and result cache. */
    public TailGuard tail() {
        return fanOut.tail();
    }

    public RootMetrics metrics() {
        return metrics;
    }

    /** The HTTP API's port. */
    public int httpPort() {
        if (http == null) {
            throw new IllegalStateException("this root was started without an HTTP API");
        }
        return http.port();
    }

    /** Admission control of the HTTP API's searches (off without an HTTP API). */
    public AdmissionControl admission() {
        return admission;
    }

    /** The token the HTTP API's admin routes require; null when they refuse everyone. */
    public String adminToken() {
        return adminToken;
    }

    /** HTTP connections open now. */
    public int httpOpenConnections() {
        return http == null ? 0 : http.openConnections();
    }

    /** HTTP connections closed at once because the connection cap was reached. */
    public long httpRefusedConnections() {
        return http == null ? 0 : http.refusedConnections();
    }

    /** What {@code /ready} says. */
    public Readiness readiness() {
        return readiness;
    }

    /**
     * Stops gracefully, then closes: stops accepting connections, reports not ready, refuses new
     * searches (503 {@code shutting_down}) and closes each HTTP connection after its next answer;
     * waits up to the drain timeout for the searches in flight to be answered (each ends by its own
     * deadline anyway) and for the clients to stop sending, closing idle connections only between
     * requests ({@link HttpApiServer#drain}); then closes the leaf connections and the event loops.
     * What the drain did is logged and kept ({@link #stopReport()}). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (group.isShuttingDown()) {
            return;
        }
        long startNanos = Ticker.system().nanoTime();
        if (http != null) {
            http.stopAccepting(); // first: answers still keep their connections until the root says stopping
        }
        readiness.markStopping();
        if (http != null) {
            // Queued searches were accepted too: they start as places free up and are answered.
            int inflight = admission.inflight() + admission.queued();
            if (inflight > 0) {
                LOG.log(System.Logger.Level.INFO, "stopping: waiting up to {0} for {1} searches in flight",
                        Durations.format(drainTimeout), inflight);
            }
            DrainOutcome drained = http.drain(startNanos, () -> admission.inflight() + admission.queued());
            stopReport = "root stopped: HTTP " + drained.describe();
            LOG.log(drained.searchesLeft() > 0 || drained.closedAtDeadline() > 0 ? System.Logger.Level.WARNING
                    : System.Logger.Level.INFO, stopReport);
        } else {
            stopReport = "root stopped (no HTTP API)";
        }
        if (placement != null) {
            placement.close();
        }
        if (sharedPlacement != null) {
            sharedPlacement.close();
        }
        if (members != null) {
            members.close();
        }
        documents.close();
        fanOut.close();
        metrics.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** With {@code --zk} and placement on: the placement shared among the roots; null otherwise. */
    public SharedPlacement sharedPlacement() {
        return sharedPlacement;
    }

    /**
     * What the stop did (its HTTP drain), once {@link #close()} has returned; null before. The
     * command line prints it, since logging may have ended before the shutdown hook that stops the
     * root runs.
     */
    public String stopReport() {
        return stopReport;
    }
}
