package io.hedgerow.leaf.server;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.leaf.fault.FaultInjector;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.write.LiveWrites;
import io.hedgerow.leaf.search.IndexContext;
import io.hedgerow.leaf.search.PartitionWarmer;
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

/**
 * A leaf: a Netty TCP server speaking the protobuf protocol, serving the partitions a root assigns
 * to it from one index directory. It opens nothing until a root says which partitions to serve.
 */
public final class LeafServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LeafServer.class.getName());

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

    private LeafServer(LeafConfig config, LeafContext leaf, ExecutorService admin, EventLoopGroup group,
            Channel serverChannel, ChannelGroup connections, PartitionStore.ServedBuild build) {
        this.config = config;
        this.build = build;
        this.partitions = leaf.partitions();
        this.scheduler = leaf.scheduler();
        this.faults = leaf.faults();
        this.counters = leaf.counters();
        this.peers = leaf.peers();
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
        PartitionStore store = new PartitionStore(config.indexDir());
        // Held while the leaf runs, so no rebuild deletes the build it serves.
        PartitionStore.ServedBuild build = store.lockCurrentBuild();
        IndexContext index = IndexContext.of(store, build.manifest(), config.limits());
        OpenPartitions partitions = new OpenPartitions(index, new PartitionWarmer(Ticker.system(), config.warmup()));
        LiveWrites writes = new LiveWrites(index, LiveWrites.DEFAULT_REFRESH, partitions::replace,
                partition -> partitions.get(partition) != null);
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
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(config.ioThreads(), "leaf-io");
        LeafCounters counters = new LeafCounters();
        // Twin cancels to other leaves go out on this leaf's own event loops: no threads of their own.
        PeerCancels peers = new PeerCancels(group, transport.channelClass(), config.maxFrameBytes(), Ticker.system(),
                counters, Clock.systemUTC());
        LeafContext leaf = new LeafContext(partitions, scheduler, new InflightTasks(Ticker.system(), counters, Clock.systemUTC()),
                Ticker.system(), faults, counters, peers, config.slice().toNanos(),
                QueryOfDeath.halting(config.queryOfDeath()));
        ChannelGroup connections = new DefaultChannelGroup(group.next());
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            connections.add(ch);
                            WireCodec.install(ch.pipeline(), config.maxFrameBytes());
                            ch.pipeline().addLast("leaf", new LeafConnectionHandler(leaf, admin));
                        }
                    })
                    .bind(config.host(), config.port())
                    .syncUninterruptibly()
                    .channel();
            LeafServer server = new LeafServer(config, leaf, admin, group, channel, connections, build);
            // Named after the build and the bound port: a leaf restarted in place finds its writes
            // again, and one started on a rebuilt index does not serve writes made to the old build.
            writes.start(LiveWrites.leafDir(store.liveDir().resolve(build.manifest().build() == null ? "build-0000"
                    : build.manifest().build()), server.port()));
            LOG.log(System.Logger.Level.INFO, "leaf serving index {0} on {1}:{2} ({3}, {4} workers{5}; protocol {6})",
                    IndexIdentities.describe(partitions.identity()), config.host(), String.valueOf(server.port()),
                    transport.name(), config.workers(), config.faultInjection() ? ", fault injection enabled" : "",
                    String.valueOf(Protocol.VERSION));
            if (config.queryOfDeath() != null) {
                LOG.log(System.Logger.Level.WARNING, "query of death armed: a search or fetch whose query contains "
                        + "''{0}'' halts this leaf", config.queryOfDeath());
            }
            return server;
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            scheduler.close();
            admin.shutdownNow();
            writes.close();
            build.close();
            throw new IOException("cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
    }

    /** The bound port. */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public String address() {
        return config.host() + ":" + port();
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

    /** Other leaves this one has a connection to for tied requests' cancels, right now. */
    public int twinPeersConnected() {
        return peers.connectedPeers();
    }

    /** Stops listening, closes every connection (roots see it at once), stops the workers. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        String address = address();
        serverChannel.close().syncUninterruptibly();
        connections.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        scheduler.close();
        admin.shutdownNow();
        partitions.close();
        build.close();
        LOG.log(System.Logger.Level.INFO, "leaf {0} stopped; {1}", address, counters.snapshot().describe());
    }
}
