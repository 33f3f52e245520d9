package io.hedgerow.root.transport;

import io.hedgerow.common.policy.Backoff;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.common.wire.proto.LeafSearchRequest;
import io.hedgerow.common.wire.proto.Ping;
import io.hedgerow.common.wire.proto.PartitionInfo;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.LeafIdentity;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.search.LeafLedger;
import io.hedgerow.root.search.LeafProgress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.AttributeKey;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One event loop's connection to one leaf. Every query handled on that loop sends its
 * sub-requests for this leaf here, so fan-out, answers and merging all stay on one thread: no
 * locks, no hand-offs. Writes are flushed once per event-loop task, however many queries wrote.
 *
 * <p><b>The handshake.</b> On connect it says Hello (this root's protocol version and id). The
 * leaf's answer names its protocol version and its index; a leaf of another version, or whose
 * index is not the one this root serves ({@link io.hedgerow.root.cluster.ServedIndex}), is
 * refused: the connection stays open but never becomes ready, and the reason is the leaf's
 * {@link LeafStatus#refusal()} (in {@code /cluster}) and one warning in the log. A leaf that names a
 * node id is judged by {@link io.hedgerow.root.cluster.NodeClaims}: another node than membership knows at
 * the address, or the node another slot's connection already is, is refused and the connection closed
 * (retried after the backoff). Otherwise it sends
 * the leaf its partition assignment (the placement's current target for it, again whenever that
 * changes) and becomes ready when the leaf acknowledges it without an error; before that, an
 * acknowledgement with an error (a partition that would not open) closes the connection, so the
 * leaf gets no traffic, and the reconnection after a backoff tries again. A ready leaf that fails
 * to open a copy of a later target stays ready: the placement places that copy elsewhere. When the
 * connection drops, every sub-request waiting on it fails at once (so it can be retried elsewhere)
 * and it reconnects with exponential backoff and jitter. A leaf that goes silent without closing
 * anything (a cut link, a stopped host) is pinged, and given up after {@link LinkLiveness#SILENT_AFTER}
 * as if it had closed the connection.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its event loop: every method must be called
 * on {@link #loop()}.
 */
public final class LeafConnection {
    private static final System.Logger LOG = System.getLogger(LeafConnection.class.getName());
    /**
     * The address a channel was dialled to: a slot's address changes when another leaf takes it over
     * ({@link #slotReused}), and a connect begun before that reaches the old leaf.
     */
    private static final AttributeKey<LeafAddress> DIALLED = AttributeKey.valueOf("hedgerow.leaf.dialled");

    private final int leaf;
    private final LeafStatus status;
    private final ClusterState cluster;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    /** This leaf's current assignment, as the placement has it (built afresh for each handshake and change). */
    private final Supplier<Frame> assignment;
    private final Backoff backoff;
    private final LeafCalls calls = new LeafCalls();
    private final Runnable flush = this::flush;
    /** What this connection books of its leaf per copy and answer (shared with the simulator). */
    /** Replaced when another leaf takes over the slot ({@link #slotReused}). */
    private LeafLedger ledger;
    private final Ticker ticker;
    private Channel channel;
    /** Whether the leaf answered this channel's Hello (a leaf from before versions closes instead). */
    private boolean helloAnswered;
    /** Whether this channel's handshake was accepted, its node id claimed ({@code NodeClaims}). */
    private boolean claimed;
    /** The leaf's HelloAck said it takes {@code LeafSearchRequest} frames. */
    private boolean takesSearchParts;
    private boolean ready;
    private boolean flushScheduled;
    private int failedAttempts;
    private boolean closed;
    /** Whether {@link #start} dialled already (its own loop only). */
    private boolean started;
    /** Whether the leaf is still there, once its HelloAck said it answers pings; null before. */
    private LinkLiveness liveness;
    private ScheduledFuture<?> livenessChecks;

    public LeafConnection(int leaf, ClusterState cluster, EventLoop loop, Class<? extends Channel> channelClass,
            Supplier<Frame> assignment, Backoff backoff, Ticker ticker) {
        this.ledger = new LeafLedger(leaf, cluster.probation(), cluster.slowStart(), cluster.partitionLoad());
        this.ticker = ticker;
        this.leaf = leaf;
        this.status = cluster.leaf(leaf);
        this.cluster = cluster;
        this.loop = loop;
        this.assignment = assignment;
        this.backoff = backoff;
        int maxFrameBytes = cluster.config().maxFrameBytes();
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        WireCodec.install(ch.pipeline(), maxFrameBytes);
                        LeafAddress address = ch.attr(DIALLED).get();
                        cluster.linkTls().dialled(ch, address.host(), address.port());
                        ch.pipeline().addLast("answers", new AnswerHandler());
                    }
                });
    }

    int leaf() {
        return leaf;
    }

    EventLoop loop() {
        return loop;
    }

    LeafStatus status() {
        return status;
    }

    /** Ready, and the leaf is not draining (it said it is shutting down: no new work for it). */
    boolean isReady() {
        return ready && !status.isDraining();
    }

    /** How far the leaf has got through what this connection sent it. */
    public LeafProgress progress() {
        return ledger.progress();
    }

    /** What this connection has learnt of the leaf's latency and queue, and since when it is silent. */
    LeafLoad load() {
        return ledger.load();
    }

    /** Calls the leaf has not answered, cancelled ones included ({@link LeafCalls#outstanding}). */
    int outstanding() {
        return calls.outstanding();
    }

    /**
     * Dials the leaf, once: later calls do nothing, and so does a call while the slot is vacant (the
     * fan-out calls again when a leaf fills it). On this connection's loop.
     */
    public void start() {
        if (started || status.vacant()) {
            return;
        }
        started = true;
        connect();
    }

    /**
     * Another leaf took over this connection's slot (its old leaf left for good, no connection to it
     * ready): what this connection booked of the old leaf (load, progress) is forgotten, and its
     * backoff starts again. The reconnect already scheduled dials the slot's address as it is then,
     * the new leaf's; a connection dialled to the old address and not answered yet is closed when its
     * answer comes. On this connection's loop.
     */
    public void slotReused() {
        ledger = new LeafLedger(leaf, cluster.probation(), cluster.slowStart(), cluster.partitionLoad());
        failedAttempts = 0;
    }

    /**
     * The slot was left vacant again (its leaf turned out to be another slot's, {@code ClusterState.vacate}):
     * a channel open to it is closed, and no reconnection dials it until a leaf fills it again
     * ({@link #start}). On this connection's loop.
     */
    public void slotVacated() {
        if (channel != null) {
            channel.close();
        }
    }

    public void connect() {
        if (closed) {
            return;
        }
        LeafAddress address = status.address();
        if (address == null) {
            started = false; // left vacant (slotVacated): dialled again when a leaf fills it
            return;
        }
        ChannelFuture connecting = bootstrap.clone().attr(DIALLED, address).connect(address.host(), address.port());
        connecting.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                status.dialEnded();
                failedAttempts++;
                status.connectFailed("cannot connect to " + address + ": " + f.cause().getMessage());
                scheduleReconnect();
                return;
            }
            channel = f.channel();
            helloAnswered = false;
            takesSearchParts = false;
            if (closed) {
                channel.close();
                return;
            }
            channel.writeAndFlush(cluster.rootHello(), channel.voidPromise());
        });
    }

    /** Sends a query-phase sub-request; its answer or failure reaches {@code call}. Requires {@link #isReady()}. */
    public void send(ShardCall call, SearchRequest request) {
        send(call, Frame.newBuilder().setSearch(request).build());
    }

    /**
     * Sends several partitions' query-phase sub-requests in one frame ({@code LeafSearchRequest});
     * each answer or failure reaches its own call, as if each had gone alone. Requires {@link
     * #isReady()} and {@link #takesSearchParts()}.
     *
     * @param requests {@code calls}' requests, in the same order
     */
    public void send(List<ShardCall> calls, List<SearchRequest> requests) {
        if (calls.size() != requests.size()) {
            throw new IllegalArgumentException("requests: " + requests.size() + " (expected: one per call, "
                    + calls.size() + ")");
        }
        long now = ticker.nanoTime();
        for (ShardCall call : calls) {
            ledger.sent(now, outstanding()); // the leaf owes one answer per part
            this.calls.sent(call);
        }
        channel.write(Frame.newBuilder().setSearchParts(LeafSearchRequest.newBuilder().addAllParts(requests)).build(),
                channel.voidPromise());
        scheduleFlush();
    }

    /** Whether the leaf said it takes several partitions' sub-requests in one frame (older leaves do not). */
    public boolean takesSearchParts() {
        return takesSearchParts;
    }

    /** Sends a fetch; its answer or failure reaches {@code call}. Requires {@link #isReady()}. */
    public void send(FetchCall call, FetchRequest request) {
        send(call, Frame.newBuilder().setFetch(request).build());
    }

    /** Sends a fault injection; its ack or failure reaches {@code call}. Requires {@link #isReady()}. */
    void send(FaultCall call, InjectFault injection) {
        send(call, Frame.newBuilder().setInject(injection).build());
    }

    private void send(LeafCall call, Frame frame) {
        ledger.sent(ticker.nanoTime(), outstanding());
        calls.sent(call);
        channel.write(frame, channel.voidPromise());
        scheduleFlush();
    }

    /**
     * Stops waiting for {@code call} and tells the leaf to drop it; the leaf's answer to it, when it
     * comes, is booked by the {@link LeafLedger} (what the cancel did).
     *
     * @return true when a cancel was sent
     */
    public boolean cancel(QueryCall call) {
        if (!calls.forget(call) || !ready) {
            return false;
        }
        calls.cancelled(call);
        channel.write(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(call.requestId())).build(),
                channel.voidPromise());
        scheduleFlush();
        return true;
    }

    /** Stops waiting for {@code call} without telling the leaf (there is nothing to cancel there). */
    void forget(LeafCall call) {
        calls.forget(call);
    }

    private void scheduleFlush() {
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(flush);
        }
    }

    private void flush() {
        flushScheduled = false;
        if (channel != null) {
            channel.flush();
        }
    }

    private void onAnswer(SearchResponse response) {
        long now = ticker.nanoTime();
        if (calls.answered(response.getRequestId()) instanceof ShardCall call) {
            if (ledger.answered(call.copy(), response, now)) {
                call.answered(response, now);
            }
            return;
        }
        if (calls.answeredAfterCancel(response.getRequestId()) instanceof ShardCall call) {
            ledger.answeredAfterCancel(call.copy(), response, now, call.listener.metrics());
        } else {
            ledger.heard(now);
        }
    }

    private void onFetched(FetchResponse response) {
        long now = ticker.nanoTime();
        if (calls.answered(response.getRequestId()) instanceof FetchCall call) {
            ledger.fetched(now);
            call.answered(response, now);
            return;
        }
        if (calls.answeredAfterCancel(response.getRequestId()) instanceof FetchCall call) {
            ledger.fetchedAfterCancel(call.copy(), response.getStatus(), now, call.listener.metrics());
        } else {
            ledger.heard(now);
        }
    }

    private void onInjectAck(InjectFaultAck ack) {
        ledger.heard(ticker.nanoTime());
        if (calls.answered(ack.getRequestId()) instanceof FaultCall call) {
            call.answered(ack);
        }
    }

    private void onHelloAck(Channel from, HelloAck ack) {
        if (from != channel) {
            return;
        }
        helloAnswered = true;
        status.dialEnded();
        if (closedAsDialledBeforeReuse(from)) {
            return;
        }
        String problem = Protocol.helloAckProblem(ack, "leaf " + status.name());
        if (problem == null) {
            problem = cluster.index().admit(status.name(), ack.getIndex());
        }
        if (problem != null) {
            // Kept open and idle: the leaf cannot change version or index without a restart, which
            // closes this connection, and the reconnection says Hello again.
            refuse(problem);
            return;
        }
        switch (cluster.nodeClaims().claim(leaf, ack.getNodeId(), cluster.membership())) {
            case LeafIdentity.Verdict.Refuse refusal -> {
                // Another process at the address, or another slot's leaf: closed, so that the next Hello
                // (after the backoff) is judged as things then are (the new leaf may have registered, the
                // other slot's connection closed).
                refuse(refusal.why());
                from.close();
                return;
            }
            case LeafIdentity.Verdict.Relocate relocate -> cluster.relocate(relocate.node(), relocate.from(), leaf);
            case LeafIdentity.Verdict.Accept accept -> {
            }
        }
        claimed = true;
        status.httpAddress(ack.getHttpAddress());
        status.announcedNode(ack.getNodeId());
        takesSearchParts = ack.getTakesSearchParts();
        if (ack.getAnswersPings()) {
            watchLiveness(from);
        }
        channel.writeAndFlush(assignment.get(), channel.voidPromise());
    }

    /**
     * Closes {@code from} when it was dialled to the address the slot had before another leaf took it over
     * ({@link #slotReused}): its answers are the old leaf's, and the reconnection dials the slot's address
     * as it is now.
     *
     * @return whether it was closed
     */
    private boolean closedAsDialledBeforeReuse(Channel from) {
        LeafAddress dialled = from.attr(DIALLED).get();
        if (dialled.equals(status.address())) {
            return false;
        }
        LOG.log(System.Logger.Level.INFO, "leaf slot {0}: closing a connection to {1}, its leaf before another took"
                + " the slot over (now {2})", leaf, dialled, status.address());
        from.close();
        return true;
    }

    /**
     * Sends the leaf its current assignment again (the placement changed it): on a connection past
     * its handshake only; one still in it sends the current assignment when its Hello is answered.
     */
    public void reassign() {
        if (channel != null && helloAnswered && status.refusal() == null) {
            channel.writeAndFlush(assignment.get(), channel.voidPromise());
        }
    }

    private void refuse(String problem) {
        if (status.refused(problem)) {
            LOG.log(System.Logger.Level.WARNING, "not using leaf {0}: {1}", status.address(), problem);
        }
    }

    private void onAssigned(Channel from, AssignAck ack) {
        if (from != channel || !ready && closedAsDialledBeforeReuse(from)) {
            return;
        }
        Set<Integer> open = new HashSet<>();
        for (PartitionInfo info : ack.getPartitionsList()) {
            cluster.partitionDocCount(info.getPartition(), info.getDocCount());
            open.add(info.getPartition());
        }
        cluster.assignAcked(leaf, ack.getRequestId(), open, ack.getError());
        if (!ack.getError().isEmpty() && ready) {
            // A change of a serving leaf's assignment: the copies it could not open are the placement's
            // to place elsewhere; what it serves is open, so it stays ready.
            return;
        }
        if (!ack.getError().isEmpty()) {
            // Not ready: no traffic to a leaf missing part of its assignment. Closing retries it after a backoff.
            refuse("leaf " + status.name() + " failed its assignment: " + ack.getError());
            from.close();
            return;
        }
        if (!ready) {
            ready = true;
            failedAttempts = 0;
            if (status.connectionReady()) {
                cluster.slowStart().begin(leaf, cluster.nanoTime());
                LOG.log(System.Logger.Level.INFO, "leaf {0} is back: slow start (its share of primaries grows as its"
                        + " latency comes down)", status.name());
            }
        }
    }

    /** Pings {@code watched} when it is quiet and closes it when it stays silent ({@link LinkLiveness}). */
    private void watchLiveness(Channel watched) {
        AnswerHandler answers = watched.pipeline().get(AnswerHandler.class);
        liveness = new LinkLiveness(LinkLiveness.PING_AFTER, LinkLiveness.SILENT_AFTER, ticker.nanoTime());
        long every = LinkLiveness.PING_AFTER.toNanos() / 2;
        livenessChecks = loop.scheduleAtFixedRate(() -> {
            if (watched != channel || liveness == null) {
                return; // closed meanwhile: onClosed cancels this
            }
            long now = ticker.nanoTime();
            if (answers.heardSinceCheck) {
                // Dated to this check, not to the frame: the silence is read at most one check short.
                answers.heardSinceCheck = false;
                liveness.heard(now);
            }
            switch (liveness.check(now)) {
                case PING -> watched.writeAndFlush(Frame.newBuilder().setPing(Ping.newBuilder().setSentNanos(now)).build(),
                        watched.voidPromise());
                case SILENT -> {
                    answers.closeReason = "no frame from leaf for " + liveness.silence(now).toMillis()
                            + " ms, pings unanswered (a cut link or a stopped process)";
                    watched.close();
                }
                case QUIET -> {
                }
            }
        }, every, every, TimeUnit.NANOSECONDS);
    }

    private void onClosed(Channel closedChannel, String reason) {
        if (closedChannel != channel) {
            return;
        }
        channel = null;
        liveness = null;
        status.dialEnded();
        if (claimed) {
            claimed = false;
            cluster.nodeClaims().release(leaf);
        }
        if (livenessChecks != null) {
            livenessChecks.cancel(false);
            livenessChecks = null;
        }
        if (!helloAnswered && !closed) {
            refuse("leaf " + status.name() + " closed the connection without answering this root's Hello: " + reason
                    + " (a leaf from before protocol versions, 0, does that, this root speaks " + Protocol.VERSION
                    + "; so does a leaf that serves TLS when this root dials plaintext, or the reverse: this root dials "
                    + (cluster.linkTls().dialsTls() ? "TLS" : "plaintext") + ")");
        }
        if (ready) {
            ready = false;
            status.connectionLost(reason);
            if (!closed) {
                LOG.log(System.Logger.Level.WARNING, "lost leaf {0}: {1}", status.address(), reason);
            }
        }
        for (LeafCall call : calls.lost()) {
            call.connectionLost(reason);
        }
        failedAttempts++;
        scheduleReconnect();
    }

    private void scheduleReconnect() {
        if (closed) {
            return;
        }
        long delayNanos = backoff.delayNanos(Math.max(0, failedAttempts - 1), ThreadLocalRandom.current().nextDouble());
        loop.schedule(this::connect, delayNanos, TimeUnit.NANOSECONDS);
    }

    public void close() {
        closed = true;
        if (channel != null) {
            channel.close();
        }
    }

    private final class AnswerHandler extends SimpleChannelInboundHandler<Frame> {
        private String closeReason = "connection closed by leaf";
        /**
         * A frame came since the last liveness check: a flag, not a time, so that no answer pays a
         * clock read for liveness (the check dates it).
         */
        private boolean heardSinceCheck;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            heardSinceCheck = true;
            switch (frame.getBodyCase()) {
                case PONG -> {
                    // heard: that is all a pong says
                }
                case RESULT -> onAnswer(frame.getResult());
                case FETCH_RESULT -> onFetched(frame.getFetchResult());
                case HELLO_ACK -> onHelloAck(ctx.channel(), frame.getHelloAck());
                case ASSIGN_ACK -> onAssigned(ctx.channel(), frame.getAssignAck());
                case INJECT_ACK -> onInjectAck(frame.getInjectAck());
                case DRAINING -> status.draining("leaf " + status.name() + " is draining: " + frame.getDraining().getReason());
                default -> {
                    closeReason = "unexpected " + frame.getBodyCase() + " frame from leaf";
                    ctx.close();
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            onClosed(ctx.channel(), closeReason);
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeReason = "connection error: " + cause.getMessage();
            ctx.close();
        }
    }
}
