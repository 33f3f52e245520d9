package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.policy.Backoff;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.Frame;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leaf-to-leaf side of tied requests: when a worker starts a request that has a twin, this
 * sends {@code Cancel{twin id, if_queued, root id, sent at}} to the twin's leaf, which drops the twin
 * if it is still queued. The root id names the root both copies came from (the twin's leaf knows
 * requests by root and id); the send time, on this leaf's wall clock, lets the twin's leaf measure
 * how long the cancel took. One connection per peer address ({@link PeerLink}), opened on first use
 * on the leaf's own event loops and kept; it opens with a Hello in the {@code TWIN_CANCELS} role and
 * the peer serves it with its ordinary connection handler.
 *
 * <p>A cancel to a twin is an optimisation, never a correctness matter (the root takes whichever
 * copy answers first), so a cancel that cannot be delivered soon is dropped and counted rather than
 * kept: the twin it would have stopped is done or expired by the time a slow connection comes up.
 *
 * <p><b>Only the cluster's leaves.</b> A twin's address comes from the wire, so this dials only
 * the leaves the root named in its last assignment ({@link #clusterLeaves}); a twin naming any
 * other address is counted ({@link LeafCounters#twinsOutsideCluster}) and gets no cancel, so a
 * search cannot make this leaf dial addresses of the sender's choosing. The Hello of each link
 * carries the cluster's secret, as a root's does.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #cancelTwin} may be called from any thread, never
 * blocks and never throws; the connection work runs on an event loop. At most {@link #MAX_PEERS}
 * peers are kept (an address beyond them is refused and counted), so a root naming ever new
 * addresses cannot grow this without bound.
 */
final class PeerCancels {
    static final int MAX_PEERS = 1024;
    /** Cancels waiting for one peer's connection to come up; more are dropped. */
    static final int MAX_PENDING_PER_PEER = 4096;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** How long a peer that could not be reached is given up on before the next attempt. */
    static final Backoff RECONNECT = Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(2));

    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final int maxFrameBytes;
    private final Ticker ticker;
    private final LeafCounters counters;
    private final InstantSource wallClock;
    private final ConcurrentHashMap<String, PeerLink> links = new ConcurrentHashMap<>();
    private final Frame hello;
    private final LinkTls tls;
    /** The leaves of the cluster, from the last assignment; empty until one came. */
    private volatile Set<String> cluster = Set.of();

    /** @param clusterSecret the secret peers require in the Hello; null: none */
    PeerCancels(EventLoopGroup group, Class<? extends Channel> channelClass, int maxFrameBytes, Ticker ticker,
            LeafCounters counters, InstantSource wallClock, String clusterSecret, LinkTls tls) {
        this.tls = tls;
        this.hello = Protocol.twinCancelsHello(clusterSecret);
        this.group = group;
        this.channelClass = channelClass;
        this.maxFrameBytes = maxFrameBytes;
        this.ticker = ticker;
        this.counters = counters;
        this.wallClock = wallClock;
    }

    /**
     * Tells the leaf at {@code address} ({@code host:port}) to drop root {@code rootId}'s request
     * {@code requestId} if still queued.
     */
    void cancelTwin(String address, long rootId, long requestId) {
        if (!cluster.contains(address)) {
            counters.twinsOutsideCluster.increment();
            return;
        }
        Cancel cancel = Cancel.newBuilder()
                .setRequestId(requestId)
                .setIfQueued(true)
                .setRootId(rootId)
                .setSentAtUnixNanos(InflightTasks.unixNanos(wallClock.instant()))
                .build();
        PeerLink link = links.get(address);
        if (link == null) {
            if (links.size() >= MAX_PEERS) {
                counters.twinCancelSendFailures.increment();
                return;
            }
            link = links.computeIfAbsent(address, a -> new PeerLink(a, group.next(), channelClass, maxFrameBytes,
                    ticker, counters, hello, tls));
        }
        link.send(cancel);
    }

    /** The cluster's leaves ({@code host:port}), from an assignment of an authenticated root. */
    void clusterLeaves(List<String> leaves) {
        cluster = Set.copyOf(leaves);
    }

    /** Peers with a connection open right now (for tests). */
    int connectedPeers() {
        return (int) links.values().stream().filter(PeerLink::isConnected).count();
    }
}
