package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.http.LeafHttpConfig;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.LeafQueryCache;
import io.hedgerow.leaf.search.PartitionWarmer;
import io.hedgerow.leaf.write.LiveWrites;
import io.hedgerow.leaf.write.PeerFiles;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * A leaf: a Netty TCP server speaking the protobuf protocol, serving the partitions a root assigns
 * to it from one index directory. It opens nothing until a root says which partitions to serve.
 */
public final class LeafServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafServer.class.getName());
    /** How long a restore waits for a source leaf to connect or answer one request (a chunk of 1 MiB at most). */
    private static final java.time.Duration PEER_RECOVERY_TIMEOUT = java.time.Duration.ofSeconds(30);

    private final LeafConfig config;
    private final OpenPartitions partitions;
    private final SearchScheduler scheduler;
    private final FaultControl faults;
    private final LeafCounters counters;
    private final PeerCancels peers;
    private final ExecutorService admin;
    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final PartitionStore.ServedBuild build;
    private final LeafDrain drain;
    private final InflightTasks inflight;
    private final LeafObservability observability;
    private volatile String drained = "closed at once, without a drain";
    /** The node id every HelloAck names; "" until {@link #announceNodeId}. */
    private final AtomicReference<String> announcedNodeId;

    private LeafServer(LeafConfig config, LeafContext leaf, ExecutorService admin, EventLoopGroup group,
            Channel serverChannel, ChannelGroup connections, PartitionStore.ServedBuild build,
            LeafObservability observability, AtomicReference<String> announcedNodeId) {
        this.config = config;
        this.announcedNodeId = announcedNodeId;
        this.observability = observability;
        this.build = build;
        this.partitions = leaf.partitions();
        this.scheduler = leaf.scheduler();
        this.faults = leaf.faults();
        this.counters = leaf.counters();
        this.peers = leaf.peers();
        this.drain = leaf.drain();
        this.inflight = leaf.inflight();
        this.admin = admin;
        this.group = group;
        this.serverChannel = serverChannel;
        this.connections = connections;
    }

    /**
     * Reads the index manifest and binds the port.
     *
     * @throws IOException when the index is missing or unreadable, or the port cannot be bound
     */
    public static LeafServer start(LeafConfig config) throws IOException {
        return start(config, LeafHttpConfig.ephemeral());
    }

    /**
     * As {@link #start(LeafConfig)}, with the leaf's HTTP port (probes and metrics) as {@code http} says.
     *
     * @throws IOException also when the HTTP port cannot be bound
     */
    public static LeafServer start(LeafConfig config, LeafHttpConfig http) throws IOException {
        PartitionStore store = new PartitionStore(config.indexDir());
        // Held while the leaf runs, so no rebuild deletes the build it serves.
        PartitionStore.ServedBuild build = store.lockCurrentBuild();
        // One cache for the leaf JVM: every partition and every refreshed searcher shares it.
        LeafQueryCache queryCache = LeafQueryCache.of(config.queryCache());
        IndexContext index = IndexContext.of(store, build.manifest(), config.limits()).withQueryCache(queryCache);
        OpenPartitions partitions = new OpenPartitions(index, PartitionWarmer.paced(config.warmup()));
        LongAdder refreshes = new LongAdder();
        LeafWalMeters wal = new LeafWalMeters();
        LiveWrites writes = new LiveWrites(index, config.live(), (p, searcher) -> {
            refreshes.increment();
            partitions.replace(p, searcher);
        },
                partition -> partitions.get(partition) != null, wal);
        partitions.attachLive(writes);
        SearchScheduler scheduler = new SearchScheduler(config.workers(), config.scheduling(), Ticker.system());
        ExecutorService admin = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "leaf-admin");
            thread.setDaemon(true);
            return thread;
        });
        FaultControl faults = new FaultControl(config.faultInjection(),
                new FaultInjector(Ticker.system(), () -> ThreadLocalRandom.current().nextLong()), scheduler::wakeWorkers);
        if (config.initialDelay() != null) {
            faults.inject(config.initialDelay());
        }
        if (config.initialStall() != null) {
            faults.inject(config.initialStall());
        }
        LinkTls tls = LinkTls.serving(config.tls());
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(config.ioThreads(), "leaf-io");
        LeafCounters counters = new LeafCounters();
        // Twin cancels to other leaves go out on this leaf's own event loops: no threads of their own.
        PeerCancels peers = new PeerCancels(group, transport.channelClass(), config.maxFrameBytes(), Ticker.system(),
                counters, Clock.systemUTC(), config.clusterSecret(), tls);
        LeafDrain drain = new LeafDrain(group);
        LeafContext leaf = new LeafContext(partitions, scheduler, new InflightTasks(Ticker.system(), counters, Clock.systemUTC()),
                Ticker.system(), faults, counters, peers, config.slice().toNanos(),
                QueryOfDeath.halting(config.queryOfDeath()), drain, config.clusterSecret());
        ChannelGroup connections = new DefaultChannelGroup(group.next());
        LeafObservability observability = null;
        try {
            observability = LeafObservability.start(http, config.host(), transport, group, leaf, refreshes, wal,
                    queryCache);
            String httpAddress = observability.httpAddress();
            AtomicReference<String> announcedNodeId = new AtomicReference<>("");
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.add(ch);
                            WireCodec.install(ch.pipeline(), config.maxFrameBytes());
                            tls.accepted(ch);
                            ch.pipeline().addLast("leaf", new LeafConnectionHandler(leaf, admin, httpAddress,
                                    announcedNodeId::get));
                        }
                    })
                    .bind(config.host(), config.port())
                    .syncUninterruptibly()
                    .channel();
            LeafServer server = new LeafServer(config, leaf, admin, group, channel, connections, build, observability,
                    announcedNodeId);
            // Named after the build and the leaf's name (or bound port): a leaf started again under
            // its name finds its writes, and one on a rebuilt index does not serve the old build's.
            // Restores pull other leaves' snapshots over the same protocol, on this leaf's event loops.
            PeerFiles peerFiles = new PeerFileLinks(group, transport.channelClass(), config.maxFrameBytes(),
                    config.clusterSecret(), tls, PEER_RECOVERY_TIMEOUT);
            // A primary copies its numbered batches to its replicas itself (primary-led replication).
            PeerWriteLinks copies = new PeerWriteLinks(group, transport.channelClass(), config.maxFrameBytes(),
                    config.clusterSecret(), tls);
            writes.start(store.liveDir().resolve(build.manifest().build() == null ? "build-0000"
                    : build.manifest().build()), server.port(), peerFiles, copies);
            LOG.log(System.Logger.Level.INFO, "leaf serving index {0} on {1}:{2} ({3}, {4} workers{5}{6}{8}; protocol {7})",
                    IndexIdentities.describe(partitions.identity()), config.host(), String.valueOf(server.port()),
                    transport.name() + (config.tls() != null ? ", TLS" : ""), config.workers(),
                    scheduler.laneWorkers() == 0 ? "" : " and " + scheduler.laneWorkers() + " in the expensive lane",
                    config.faultInjection() ? ", fault injection enabled" : "", String.valueOf(Protocol.VERSION),
                    queryCache.enabled() ? ", query cache " + config.queryCache().describe() : "");
            if (config.clusterSecret() == null) {
                LOG.log(System.Logger.Level.WARNING, "no cluster secret (--cluster-secret-file): anyone who reaches "
                        + "{0}:{1} can assign this leaf partitions and search it", config.host(), String.valueOf(server.port()));
            }
            if (config.queryOfDeath() != null) {
                LOG.log(System.Logger.Level.WARNING, "query of death armed: a search or fetch whose query contains "
                        + "''{0}'' halts this leaf", config.queryOfDeath());
            }
            return server;
        } catch (IOException | RuntimeException e) {
            if (observability != null) {
                observability.close();
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            scheduler.close();
            admin.shutdownNow();
            writes.close();
            build.close();
            throw e instanceof IOException io ? io
                    : new IOException("cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
    }

    /** The bound port. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public String address() {
        return config.host() + ":" + port();
    }

    /**
     * The node id this leaf registers under in membership ({@code --zk}): its {@code --node-id}, or
     * {@code host_port} ({@link LeafMembership#defaultNodeId}).
     */
    public NodeId nodeId() {
        String named = config.live().nodeId();
        return named != null ? NodeId.of(named) : LeafMembership.defaultNodeId(config.host(), port());
    }

    /**
     * Names {@link #nodeId} in every HelloAck from now on, so that a root compares it with the node
     * membership knows at this leaf's address and refuses another process that took the port. Called
     * by a leaf that registers in membership, before it registers. A leaf that does not register
     * names none (a root accepts it, having nothing to compare), nor does one that a test registers
     * under a name of the test's own.
     *
     * @return the node id, to register under
     */
    public NodeId announceNodeId() {
        NodeId node = nodeId();
        announcedNodeId.set(node.value());
        return node;
    }

    /** host:port of the leaf's HTTP port (probes, {@code /metrics}); "" when it was disabled. */
    public String httpAddress() {
        return observability.httpAddress();
    }

    /** Partitions open right now. */
    public Set<Integer> openPartitions() {
        return partitions.openPartitions();
    }

    /** The injected delay in effect, if any (only with fault injection; it lapses by itself). */
    public Optional<InjectedDelay> injectedDelay() {
        return faults.injector().currentDelay();
    }

    /** The injected stall in effect, if any (only with fault injection; it lapses by itself). */
    public Optional<InjectedStall> injectedStall() {
        return faults.injector().currentStall();
    }

    /** Sub-requests an injected delay has held so far. */
    public long delaysInjected() {
        return counters.delaysInjected.sum();
    }

    /** Tasks and continuations waiting for a worker (for tests). */
    int queued() {
        return scheduler.queued();
    }

    /** What this leaf did with cancels, tied requests, deadlines and injected faults since it started. */
    public LeafCounters counters() {
        return counters;
    }

    /** The service time of the search answers this leaf wrote, per partition, since it started. */
    public ServedLoad servedLoad() {
        return counters.servedLoad;
    }

    /** Other leaves this one has a connection to for tied requests' cancels, right now. */
    public int twinPeersConnected() {
        return peers.connectedPeers();
    }

    /** How the last close drained ("drained in 12 ms, 3 refused as draining"), for the shutdown line. */
    public String drainOutcome() {
        return drained;
    }

    /** Whether the leaf is shutting down and refusing new work. */
    public boolean isDraining() {
        return drain.isDraining();
    }

    /**
     * Stops listening, drains (see {@link LeafDrain}: new searches and fetches are refused as
     * draining, roots are told, what the leaf holds is answered, for at most the drain timeout),
     * then closes every connection and stops the workers. Idempotent; blocks for the drain.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        String address = address();
        serverChannel.close().syncUninterruptibly();
        if (!config.drainTimeout().isZero()) {
            long started = System.nanoTime();
            drain.begin(group, "leaf " + address + " is shutting down", config.drainTimeout());
            int left = drain.awaitIdle(group, inflight::size, config.drainTimeout(), Ticker.system());
            drained = "drained in " + (System.nanoTime() - started) / 1_000_000 + " ms, " + counters.drainRefusals()
                    + " refused as draining" + (left == 0 ? ""
                            : ", " + left + " sub-requests still held at the drain timeout, closed under them");
            LOG.log(System.Logger.Level.INFO, "leaf {0} {1}", address, drained);
        }
        connections.close().syncUninterruptibly();
        observability.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        scheduler.close();
        admin.shutdownNow();
        partitions.close();
        build.close();
        LOG.log(System.Logger.Level.INFO, "leaf {0} stopped; {1}", address, counters.snapshot().describe());
    }
}
