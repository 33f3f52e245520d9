package io.hedgerow.leaf.server;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.LeafRegistration;
import io.hedgerow.coordination.NodeId;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A leaf's membership in a cluster on ZooKeeper ({@code leaf --zk}): once the leaf serves, a session
 * of its own and an ephemeral znode ({@link LeafRegistration}) holding its address and, every
 * {@link #PUBLISH_INTERVAL} when it changed, its served load per partition ({@link ServedLoad}), so
 * the placement leader sees what every root sent it. {@link #close} deletes the znode (a clean
 * shutdown); a leaf killed or paused past the session timeout loses it when ZooKeeper expires the
 * session.
 *
 * <p>Why the load rides in the membership znode: it is one write per leaf every few seconds at most
 * (never per request), it disappears with the leaf's session, and a root watching membership has it
 * already, with no second tree to keep consistent with the first.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. The publishing runs on a thread of its own
 * ("leaf-membership"), never on an event loop or a worker; Curator writes the data in the
 * background. A write that fails is logged and tried again at the next interval.
 */
public final class LeafMembership implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafMembership.class.getName());
    /** How often the load is published (when it changed): the placement ticks 4 times a second and
     *  measures load over a window of 30 s by default, so 2 s adds little lag and 1 write per leaf per 2 s. */
    public static final Duration PUBLISH_INTERVAL = Duration.ofSeconds(2);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final CoordinationClient client;
    private final LeafRegistration registration;
    private final Supplier<Map<Integer, Long>> load;
    private final Duration interval;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leaf-membership");
        t.setDaemon(true);
        return t;
    });
    /** The entry last published; the publishing thread only. */
    private LeafEntry published;

    private LeafMembership(CoordinationClient client, LeafRegistration registration, LeafEntry first,
            Supplier<Map<Integer, Long>> load, Duration interval) {
        this.client = client;
        this.interval = interval;
        this.registration = registration;
        this.published = first;
        this.load = load;
    }

    /**
     * Connects to ZooKeeper and registers leaf {@code node} at {@code address}, publishing {@code load}
     * every {@code interval} while it changes.
     *
     * @throws CoordinationException when ZooKeeper cannot be reached or the znode not created in time
     */
    public static LeafMembership start(CoordinationSettings settings, NodeId node, String address,
            Supplier<Map<Integer, Long>> load, Duration interval) throws CoordinationException {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval: " + interval + " (expected: > 0)");
        }
        CoordinationClient client = CoordinationClient.connect(settings);
        try {
            LeafEntry first = new LeafEntry(address, incarnation(), load.get());
            LeafRegistration registration = LeafRegistration.register(client, node, first, PATIENCE);
            LeafMembership membership = new LeafMembership(client, registration, first, load, interval);
            membership.thread.scheduleWithFixedDelay(membership::publishSafely, interval.toMillis(),
                    interval.toMillis(), TimeUnit.MILLISECONDS);
            LOG.log(System.Logger.Level.INFO, "leaf {0} registered at {1} in cluster ''{2}'' on ZooKeeper {3}"
                    + " (session timeout {4} ms)", node, address, settings.cluster(), settings.connectString(),
                    String.valueOf(client.negotiatedSessionTimeoutMs()));
            return membership;
        } catch (CoordinationException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** As {@link #start(CoordinationSettings, NodeId, String, Supplier, Duration)}, every {@link #PUBLISH_INTERVAL}. */
    public static LeafMembership start(CoordinationSettings settings, NodeId node, String address,
            Supplier<Map<Integer, Long>> load) throws CoordinationException {
        return start(settings, node, address, load, PUBLISH_INTERVAL);
    }

    /**
     * The node id of a leaf started without {@code --node-id}: its {@code host_port}, the name the
     * roots' write path gives a replica it knows by address.
     */
    public static NodeId defaultNodeId(String host, int port) {
        String name = host.replaceAll("[^A-Za-z0-9_.-]", "-") + "_" + port;
        return NodeId.of(name.length() <= 64 ? name : name.substring(name.length() - 64));
    }

    /**
     * The address roots reach a leaf listening on {@code host} at: {@code host:port}, or, for a wildcard
     * address (listening on every interface), this machine's host name.
     */
    public static String advertisedAddress(String host, int port) {
        String reachable = host;
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            try {
                reachable = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("--host " + host + ": this machine's name is unknown (expected:"
                        + " --host with the address roots reach this leaf at, for its membership)", e);
            }
        }
        return reachable + ":" + port;
    }

    /** The leaf's node id. */
    public NodeId nodeId() {
        return registration.nodeId();
    }

    /** This process's ZooKeeper session (tests cut it). */
    public CoordinationClient coordination() {
        return client;
    }

    private void publishSafely() {
        try {
            Map<Integer, Long> now = load.get();
            if (now.equals(published.servedNanos())) {
                return; // idle: nothing to write
            }
            LeafEntry next = published.withServedNanos(now);
            registration.publish(next);
            published = next;
        } catch (CoordinationException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "leaf {0}: publishing its load failed (tried again in {1} ms): {2}",
                    registration.nodeId(), String.valueOf(interval.toMillis()), e.getMessage());
        }
    }

    private static long incarnation() {
        SecureRandom random = new SecureRandom();
        long value;
        do {
            value = random.nextLong();
        } while (value == 0);
        return value;
    }

    /** Stops publishing and deletes the membership znode, then ends the session. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.shutdownNow();
        client.close(); // closes the registration first (its znode deleted), then the session
        LOG.log(System.Logger.Level.INFO, "leaf {0} deregistered", registration.nodeId());
    }
}
