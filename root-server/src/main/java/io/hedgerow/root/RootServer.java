package io.hedgerow.root;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.api.HedgerowClient;
import io.hedgerow.root.api.LeafFaults;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.fanout.DispatchPolicy;
import io.hedgerow.root.fanout.FanOut;
import io.hedgerow.root.http.HttpApiServer;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.http.LeafAdmin;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.WriteSettings;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
    private final DocumentWriter documents;

    private RootServer(EventLoopGroup group, FanOut fanOut, RootMetrics metrics, HttpApiServer http,
            DocumentWriter documents) {
        this.documents = documents;
        this.group = group;
        this.fanOut = fanOut;
        this.metrics = metrics;
        this.http = http;
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
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(config.ioThreads(), "root-io");
        try {
            ClusterState cluster = new ClusterState(config, FanOut.connectionsPerLeaf(group), Ticker.system(), rootId);
            RootMetrics metrics = new RootMetrics(cluster);
            FanOut fanOut = new FanOut(cluster, group, transport, DispatchPolicy.leastOutstanding(), metrics,
                    Ticker.system());
            fanOut.connect();
            if (!fanOut.awaitReady(readyTimeout)) {
                LOG.log(System.Logger.Level.WARNING, "not every leaf is ready; serving anyway{0}", refusals(cluster));
            }
            DocumentWriter documents = new DocumentWriter(cluster, group, transport, WriteSettings.defaults(),
                    Ticker.system(), fanOut.tail().cache()::invalidateAll);
            HttpApiServer http = httpHost == null ? null
                    : HttpApiServer.start(group, transport, httpHost, httpPort, fanOut, cluster, metrics, admin,
                            fanOut.leafFaults(), fanOut.tail(), documents);
            return new RootServer(group, fanOut, metrics, http, documents);
        } catch (IOException | InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
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

    /** Stops the HTTP API, closes leaf connections and stops the event loops. Idempotent. */
    @Override
    public synchronized void close() {
        if (group.isShuttingDown()) {
            return;
        }
        if (http != null) {
            http.close();
        }
        documents.close();
        fanOut.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
