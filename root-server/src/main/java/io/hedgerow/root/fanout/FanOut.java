package io.hedgerow.root.fanout;

import io.hedgerow.api.HedgerowClient;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.policy.Backoff;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.fault.LeafFaults;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.DispatchPolicy;
import io.hedgerow.root.search.FanOutContext;
import io.hedgerow.root.search.LeafView;
import io.hedgerow.root.search.RequestTag;
import io.hedgerow.root.search.RunContext;
import io.hedgerow.root.search.SearchRun;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.transport.LeafConnection;
import io.hedgerow.root.transport.LeafFaultSender;
import io.hedgerow.root.transport.LoopConnections;
import io.hedgerow.root.transport.LoopLeafView;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The root's search engine: connections from every event loop to every leaf, and a
 * {@link SearchRun} per query (executed by its {@link Gatherer}) on the loop it arrived on. This is the {@link HedgerowClient} that
 * the HTTP API and embedding applications call.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #search} may be called from any thread. A call
 * from one of the group's event loops (the HTTP server's) runs there without a hand-off; other
 * callers are spread over the loops.
 */
public final class FanOut implements HedgerowClient, AutoCloseable {
    private static final Backoff RECONNECT = Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(2));

    private final FanOutContext context;
    private final LoopConnections[] loops;
    private final SearchLoop[] searchLoops;
    private final LeafFaults leafFaults;
    private final EventLoopGroup group;
    private final long defaultTimeoutNanos;
    private final long maxTimeoutNanos;
    private volatile boolean closed;
    /** Set by {@link #connect}: from then on, a slot filled at run time is dialled at once. */
    private volatile boolean connecting;

    public FanOut(ClusterState cluster, EventLoopGroup group, Transport transport, DispatchPolicy policy,
            RootMetrics metrics, Ticker ticker) {
        this.context = FanOutContext.of(cluster, policy, metrics, ticker, cluster.index()::parse);
        metrics.watch(context.tail());
        metrics.watch(context.costs(), cluster.leaves());
        this.group = group;
        this.defaultTimeoutNanos = cluster.config().defaultTimeout().toNanos();
        this.maxTimeoutNanos = cluster.config().maxTimeout().toNanos();
        List<LoopConnections> perLoop = new ArrayList<>();
        int leaves = cluster.leaves().size();
        for (EventExecutor executor : group) {
            EventLoop loop = (EventLoop) executor;
            LeafConnection[] byLeaf = new LeafConnection[leaves];
            for (int leaf = 0; leaf < leaves; leaf++) {
                byLeaf[leaf] = new LeafConnection(leaf, cluster, loop, transport.channelClass(),
                        assignmentFrame(cluster, leaf), RECONNECT, ticker);
            }
            perLoop.add(new LoopConnections(loop, byLeaf, perLoop.size()));
        }
        this.loops = perLoop.toArray(LoopConnections[]::new);
        this.searchLoops = new SearchLoop[loops.length];
        for (int i = 0; i < loops.length; i++) {
            searchLoops[i] = SearchLoop.of(loops[i], ticker, cluster);
        }
        this.leafFaults = new LeafFaultSender(loops);
        cluster.onSlotFilled(this::dial);
        cluster.onSlotVacated(slot -> {
            context.roundTrip().forget(slot);
            for (LoopConnections loop : loops) {
                loop.loop().execute(() -> loop.all()[slot].slotVacated());
            }
        });
        cluster.onSlotReused((slot, before, now) -> {
            context.roundTrip().forget(slot);
            for (LoopConnections loop : loops) {
                loop.loop().execute(() -> loop.all()[slot].slotReused());
            }
        });
    }

    /**
     * A leaf filled {@code slot} at run time: every loop dials it (once {@link #connect} ran; a slot
     * filled before that is dialled by it). Its handshake sends it its target, empty until the
     * placement gives it copies.
     */
    private void dial(int slot) {
        if (!connecting) {
            return;
        }
        for (LoopConnections loop : loops) {
            loop.loop().execute(() -> loop.all()[slot].start());
        }
    }

    /** Number of connections each leaf gets: one per event loop. */
    public static int connectionsPerLeaf(EventLoopGroup group) {
        int count = 0;
        for (EventExecutor ignored : group) {
            count++;
        }
        return count;
    }

    /**
     * The leaf's assignment as the placement has it now: its target partitions, numbered by the
     * target's version (the request id, which the leaf's acknowledgement echoes).
     */
    private static Supplier<Frame> assignmentFrame(ClusterState cluster, int leaf) {
        return () -> {
            var placement = cluster.placement();
            return Frame.newBuilder().setAssign(AssignPartitions.newBuilder()
                            .setRequestId(placement.targetVersion()[leaf])
                            .setIndexName(cluster.config().indexName())
                            .addAllPartitions(Arrays.stream(placement.targetOfLeaf()[leaf]).boxed().toList())
                            .addAllPeers(cluster.leafNames()))
                    .build();
        };
    }

    /**
     * Sends {@code leaf} its current assignment (the placement changed it) on every connection past
     * its handshake; from any thread. Each connection reads the placement when it sends; should an
     * older assignment still arrive last (another connection's handshake), the leaf's
     * acknowledgement names the older version and the placement service sends it again.
     */
    public void reassign(int leaf) {
        for (LoopConnections loop : loops) {
            loop.loop().execute(() -> loop.all()[leaf].reassign());
        }
    }

    /**
     * Opens every connection to a filled slot; they become ready as leaves acknowledge their
     * assignments. Slots filled later are dialled as they fill.
     */
    public void connect() {
        connecting = true;
        for (LoopConnections loop : loops) {
            loop.loop().execute(() -> {
                for (LeafConnection connection : loop.all()) {
                    connection.start();
                }
            });
        }
    }

    /**
     * Waits until every leaf's connections are ready, or the timeout passes, or every leaf not
     * ready is refused (another protocol version or index: it will not become ready).
     *
     * @return true when the whole cluster is ready
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!context.cluster().allLeavesSettled()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return context.cluster().allLeavesUp();
    }

    public ClusterState cluster() {
        return context.cluster();
    }

    /** Fault injection in the leaves, over these connections (leaves obey only with fault injection enabled). */
    public LeafFaults leafFaults() {
        return leafFaults;
    }

    @Override
    public CompletableFuture<SearchResult> search(SearchRequest request) {
        return search(request, context.ticker().nanoTime());
    }

    /**
     * As {@link #search(SearchRequest)}, for a request that began earlier: its deadline and latency
     * count from {@code startNanos} (on this root's ticker), as the HTTP API counts from a request's
     * first byte.
     */
    public CompletableFuture<SearchResult> search(SearchRequest request, long startNanos) {
        return search(request, startNanos, RequestTag.NONE);
    }

    /** As {@link #search(SearchRequest, long)}, for an HTTP request tagged {@code tag} (its id goes to the leaves). */
    public CompletableFuture<SearchResult> search(SearchRequest request, long startNanos, RequestTag tag) {
        CompletableFuture<SearchResult> promise = new CompletableFuture<>();
        if (closed) {
            promise.completeExceptionally(new SearchException(SearchException.Kind.SHUTTING_DOWN, "the root is shutting down"));
            return promise;
        }
        LoopConnections current = LoopConnections.current(loops);
        if (current != null) {
            start(searchLoop(current), request, startNanos, tag, promise);
        } else {
            SearchLoop chosen = searchLoops[ThreadLocalRandom.current().nextInt(searchLoops.length)];
            chosen.connections().loop().execute(() -> start(chosen, request, startNanos, tag, promise));
        }
        return promise;
    }

    private SearchLoop searchLoop(LoopConnections connections) {
        for (SearchLoop loop : searchLoops) {
            if (loop.connections() == connections) {
                return loop;
            }
        }
        throw new IllegalStateException("not one of this root's event loops");
    }

    /** Refused if blocklisted, served if cached, otherwise run. */
    private void start(SearchLoop loop, SearchRequest request, long startNanos, RequestTag tag,
            CompletableFuture<SearchResult> promise) {
        switch (context.tail().admit(request, startNanos)) {
            case TailGuard.Refused refused -> refuse(refused.reason(), promise);
            case TailGuard.Served served -> {
                context.metrics().servedFromCache(served.result().tookNanos());
                promise.complete(served.result());
            }
            case TailGuard.Run run -> {
                int[] targets;
                try {
                    targets = RunContext.targetsOf(context, request);
                } catch (SearchException e) {
                    refuse(e, promise); // a routing value the index cannot route
                    return;
                }
                long timeoutNanos = request.timeoutMillis() == 0 ? defaultTimeoutNanos
                        : Math.min(maxTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(request.timeoutMillis()));
                RunContext runContext = new RunContext(context, loop.view(), loop.connections()::nextRequestId,
                        ThreadLocalRandom.current(), request, run, startNanos, timeoutNanos, targets, tag);
                new Gatherer(new SearchRun(runContext), loop.connections(), context, loop.scheduler(), promise).start();
            }
        }
    }

    /** A search refused before any leaf saw it: counted by why, and failed with the reason. */
    private void refuse(SearchException reason, CompletableFuture<SearchResult> promise) {
        switch (reason.kind()) {
            case BLOCKLISTED -> context.metrics().blocklistRefused();
            case BAD_QUERY -> context.metrics().requestRejected(RootMetrics.RequestError.BAD_QUERY);
            default -> context.metrics().requestRejected(RootMetrics.RequestError.UNAVAILABLE);
        }
        promise.completeExceptionally(reason);
    }

    /** One event loop as its searches see it: its connections, the leaves through them, its timers. */
    private record SearchLoop(LoopConnections connections, LeafView view, RunScheduler scheduler) {
        static SearchLoop of(LoopConnections connections, Ticker ticker, ClusterState cluster) {
            EventLoop loop = connections.loop();
            LeafView view = new LoopLeafView(connections, ticker, cluster.config().adaptation().stallRule(),
                    cluster.probation(), cluster.staleReplicas(), cluster.slowStart());
            return new SearchLoop(connections, view, (task, delayNanos) -> {
                ScheduledFuture<?> scheduled = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
                return () -> scheduled.cancel(false);
            });
        }
    }

    /** The root's canary timeout, blocklist, cutoff and result cache, for the admin API. */
    public TailGuard tail() {
        return context.tail();
    }

    /** Closes every leaf connection and waits until they are closed. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (LoopConnections loop : loops) {
            if (!loop.loop().isShuttingDown()) {
                loop.loop().submit(() -> {
                    for (LeafConnection connection : loop.all()) {
                        connection.close();
                    }
                }).syncUninterruptibly();
            }
        }
    }
}
