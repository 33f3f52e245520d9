package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireLimits;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.ConnectionRole;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hello;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.common.wire.proto.LeafSearchRequest;
import io.hedgerow.common.wire.proto.Pong;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.write.SnapshotFiles;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Serves one connection from a root, or from another leaf (which sends only twin cancels):
 * searches and fetches go to the shared scheduler, cancels to the in-flight registry, assignments
 * to the admin thread, fault injections to {@link FaultControl} (answered at once). A query of death
 * halts the process here, before its task exists. Nothing here
 * blocks the event loop. A malformed or oversized frame closes this connection only.
 *
 * <p><b>The handshake.</b> The first frame must be a {@link Hello} of this leaf's protocol version
 * ({@link Protocol#VERSION}). A root's Hello names its id, and the connection's requests are known
 * by it ({@link TaskKey}); a leaf's Hello opens a connection for twin cancels, which name their
 * root. The answer, a {@link HelloAck}, carries this leaf's index identity and, to a Hello it accepts,
 * the node id it registers under in membership ({@link LeafServer#announceNodeId}). A Hello of another
 * version, or a root that opens with an assignment (protocol 0, from before the Hello), is refused:
 * logged here, told why in the answer, and from then on every search and fetch on the connection
 * is answered NOT_ASSIGNED and every cancel ignored, so a root of another version never gets
 * answers it could misread, and falls over to replicas that speak its version.
 *
 * <p><b>The cluster secret.</b> A leaf started with a cluster secret serves a connection only when
 * its Hello carries that secret: a Hello without it or with another one, or any other frame before
 * the Hello, is answered with the reason (a HelloAck error, or the refusal of what was sent) and the
 * connection is closed. Only such an authenticated root's assignment names the peers twin cancels
 * may go to ({@link PeerCancels#clusterLeaves}).
 *
 * <p><b>Several partitions in one frame.</b> A {@code LeafSearchRequest} (a root's {@code
 * --leaf-batching}) is handled part by part as if each had come alone (checks, registration,
 * answers, cancels), except that the parts not known to be expensive and untied are queued as one
 * {@link SearchParts} task; see {@link #searchParts}.
 *
 * <p><b>Peer recovery.</b> A leaf's Hello in the {@code PEER_RECOVERY} role (with the cluster's
 * secret, as any) opens a connection on which another leaf copies this leaf's snapshots: only
 * {@code LIST_SNAPSHOT} and {@code READ_SNAPSHOT_FILE} writes, read off the event loop
 * ({@link SnapshotFiles}); what it listed stays on disk until it closes.
 *
 * <p><b>Replica copies.</b> A leaf's Hello in the {@code REPLICA_COPIES} role opens the connection
 * on which a partition's primary copies its numbered batches to this leaf (primary-led replication,
 * {@link io.hedgerow.leaf.write.ReplicationGroup}): only writes with {@code primary=false}, run on
 * the write threads as a root's are.
 *
 * <p><b>Draining.</b> While the leaf shuts down ({@link LeafDrain}), a search or fetch is answered
 * BUSY with a "draining" error at once, so the root retries it on another replica.
 *
 * <p><b>Twin grace.</b> A tied request whose twin names a grace ({@code Twin.grace_nanos}) is
 * registered at once, so a cancel finds it, but queued only when the grace has passed (a timer on
 * this event loop): a cancel from its twin's leaf that comes meanwhile drops it before any worker
 * could start it.
 */
final class LeafConnectionHandler extends SimpleChannelInboundHandler<Frame> {
    private static final System.Logger LOG = System.getLogger(LeafConnectionHandler.class.getName());

    /** What the connection's first frame made it. */
    private enum Role { AWAITING_HELLO, ROOT, TWIN_CANCELS, PEER_RECOVERY, REPLICA_COPIES, REFUSED }

    private final LeafContext leaf;
    private final Executor admin;
    /** The leaf's HTTP address, told to roots in the HelloAck; "" when it has none. */
    private final String httpAddress;
    /** The node id the leaf registers under in membership, told to roots in the HelloAck; "" when none. */
    private final Supplier<String> nodeId;
    /** Whether searches may run inline ({@code --inline-cheap}, experimental): fixed for the leaf's life. */
    private final boolean inlineCheap;
    private Role role = Role.AWAITING_HELLO;
    /** Why the connection was refused, for the answers to what it sends after; null unless REFUSED. */
    private String refusal;
    /** The root's answers; null until a root's Hello is accepted. */
    private OutboundBatcher replies;
    private boolean wroteInThisRead;
    /** A PEER_RECOVERY connection's snapshots (pinned while it is open); null on any other. */
    private SnapshotFiles.Session snapshots;
    /** Close the connection once this read's answers are flushed (a refused secret). */
    private boolean closeAfterAnswers;

    LeafConnectionHandler(LeafContext leaf, Executor admin, String httpAddress, Supplier<String> nodeId) {
        this.leaf = leaf;
        this.admin = admin;
        this.httpAddress = httpAddress;
        this.nodeId = nodeId;
        this.inlineCheap = leaf.scheduler().config().inlineCheap();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
        if (role == Role.AWAITING_HELLO && leaf.clusterSecret() != null && frame.getBodyCase() != Frame.BodyCase.HELLO) {
            refuse(ctx, "no Hello with the cluster secret before " + frame.getBodyCase()
                    + " (expected: a Hello carrying the cluster's shared secret first)");
            closeAfterAnswers = true;
        }
        switch (frame.getBodyCase()) {
            case HELLO -> hello(ctx, frame.getHello());
            case SEARCH -> {
                SearchTask task = admit(ctx, frame.getSearch());
                if (task != null) {
                    submitSearch(ctx, task);
                }
            }
            case SEARCH_PARTS -> searchParts(ctx, frame.getSearchParts());
            case FETCH -> {
                if (!leaf.queryOfDeath().check(frame.getFetch().getQuery(), "fetch", frame.getFetch().getRequestId())) {
                    if (role != Role.ROOT) {
                        unserved(ctx, Frame.newBuilder().setFetchResult(FetchResponse.newBuilder()
                                .setRequestId(frame.getFetch().getRequestId())
                                .setStatus(Status.NOT_ASSIGNED)
                                .setError(unservedReason())).build());
                        return;
                    }
                    if (leaf.drain().isDraining()) {
                        leaf.counters().drainRefusals.increment();
                        unserved(ctx, Frame.newBuilder().setFetchResult(FetchResponse.newBuilder()
                                .setRequestId(frame.getFetch().getRequestId())
                                .setStatus(Status.BUSY)
                                .setError(LeafDrain.refusal())).build());
                        return;
                    }
                    submit(ctx, new FetchTask(frame.getFetch(), replies, leaf, leaf.ticker().nanoTime()), false);
                }
            }
            case CANCEL -> {
                switch (role) {
                    // A root names only its own requests.
                    case ROOT -> leaf.inflight().cancel(replies.rootId(), frame.getCancel());
                    case TWIN_CANCELS -> {
                        if (!frame.getCancel().getIfQueued() || frame.getCancel().getRootId() == 0) {
                            protocolError(ctx, "a twin cancel without if_queued or root_id");
                            return;
                        }
                        leaf.inflight().cancel(frame.getCancel().getRootId(), frame.getCancel());
                    }
                    default -> {
                        // Refused or not introduced: nothing of theirs is here to cancel.
                    }
                }
            }
            case INJECT -> {
                InjectFaultAck ack = role == Role.ROOT ? leaf.faults().apply(frame.getInject())
                        : InjectFaultAck.newBuilder().setRequestId(frame.getInject().getRequestId())
                                .setError(unservedReason()).build();
                ctx.write(Frame.newBuilder().setInjectAck(ack).build(), ctx.voidPromise());
                wroteInThisRead = true;
            }
            case ASSIGN -> {
                if (role == Role.AWAITING_HELLO) {
                    // Protocol 0: its roots open with the assignment.
                    refuse(ctx, Protocol.mismatch(0, "root " + ctx.channel().remoteAddress(), "this leaf"));
                }
                if (role != Role.ROOT) {
                    ctx.write(Frame.newBuilder().setAssignAck(AssignAck.newBuilder()
                            .setRequestId(frame.getAssign().getRequestId())
                            .setError(unservedReason())).build(), ctx.voidPromise());
                    wroteInThisRead = true;
                    return;
                }
                // Only an accepted root gets here: its assignment names the cluster's leaves.
                leaf.peers().clusterLeaves(frame.getAssign().getPeersList());
                admin.execute(() -> {
                    AssignAck ack = leaf.partitions().assign(frame.getAssign());
                    replies.send(Frame.newBuilder().setAssignAck(ack).build());
                });
            }
            case WRITE -> write(ctx, frame.getWrite());
            case PING -> {
                // On the event loop, whatever the workers are doing: the root asks whether the link
                // and this process are alive, not whether the searches are quick.
                ctx.write(Frame.newBuilder().setPong(Pong.newBuilder().setSentNanos(frame.getPing().getSentNanos()))
                        .build(), ctx.voidPromise());
                wroteInThisRead = true;
            }
            default -> protocolError(ctx, "unexpected " + frame.getBodyCase() + " frame");
        }
    }

    /**
     * A search as it arrives, checked: its task, to submit; or null when it was answered here
     * (refused connection, draining, malformed) or halted the process (a query of death).
     */
    private SearchTask admit(ChannelHandlerContext ctx, SearchRequest search) {
        // Checked before any work, as a crash bug in the query parser would strike.
        if (leaf.queryOfDeath().check(search.getQuery(), "search", search.getRequestId())) {
            return null;
        }
        if (role != Role.ROOT) {
            unserved(ctx, Frame.newBuilder().setResult(SearchResponse.newBuilder()
                    .setRequestId(search.getRequestId())
                    .setPartition(search.getPartition())
                    .setStatus(Status.NOT_ASSIGNED)
                    .setError(unservedReason())).build());
            return null;
        }
        if (leaf.drain().isDraining()) {
            leaf.counters().drainRefusals.increment();
            unserved(ctx, Frame.newBuilder().setResult(SearchResponse.newBuilder()
                    .setRequestId(search.getRequestId())
                    .setPartition(search.getPartition())
                    .setStatus(Status.BUSY)
                    .setError(LeafDrain.refusal())).build());
            return null;
        }
        String problem = WireLimits.searchProblem(search);
        if (problem != null) {
            unserved(ctx, Frame.newBuilder().setResult(SearchResponse.newBuilder()
                    .setRequestId(search.getRequestId())
                    .setPartition(search.getPartition())
                    .setStatus(Status.BAD_QUERY)
                    .setError("refused by the leaf: " + problem)).build());
            return null;
        }
        return new SearchTask(search, replies, leaf, leaf.ticker().nanoTime());
    }

    /** Submits one search alone: a tied one after its twin's grace, if it names one. */
    private void submitSearch(ChannelHandlerContext ctx, SearchTask task) {
        SearchRequest search = task.request();
        long graceNanos = search.hasTwin() ? search.getTwin().getGraceNanos() : 0;
        if (graceNanos > 0) {
            submitAfterGrace(ctx, task, graceNanos);
        } else {
            submit(ctx, task, search.hasTwin());
        }
    }

    /**
     * One search's sub-requests for several partitions ({@code LeafSearchRequest}): each part is
     * checked, registered and answered as if it had come alone, but the parts the root does not
     * know to be expensive are queued together as one {@link SearchParts} task, which runs them one
     * after another on the worker that takes it. A part with a twin, or whose cost hint is past the
     * expensive threshold (the lane takes it on arrival), goes alone, as it would have.
     */
    private void searchParts(ChannelHandlerContext ctx, LeafSearchRequest request) {
        List<SearchTask> together = new ArrayList<>(request.getPartsCount());
        for (SearchRequest part : request.getPartsList()) {
            SearchTask task = admit(ctx, part);
            if (task == null) {
                continue;
            }
            if (part.hasTwin() || leaf.scheduler().config().isExpensive(part.getCostHint())) {
                submitSearch(ctx, task);
            } else {
                together.add(task);
            }
        }
        if (together.size() == 1) {
            submit(ctx, together.get(0), false);
            return;
        }
        if (together.isEmpty()) {
            return;
        }
        leaf.counters().searchPartsTasks.increment();
        for (SearchTask task : together) {
            leaf.inflight().register(task, false); // untied: always true
        }
        SearchParts parts = new SearchParts(together);
        if (!leaf.scheduler().trySubmit(parts, together.size())) {
            for (SearchTask task : together) {
                if (task.refuse()) { // false: a cancel answered it first
                    unserved(ctx, task.busy());
                }
            }
        }
    }

    /** Live ingestion: runs on the leaf's write threads ({@link io.hedgerow.leaf.write.LiveWrites}). */
    private void write(ChannelHandlerContext ctx, WriteRequest write) {
        var live = leaf.partitions().live();
        if (role == Role.PEER_RECOVERY && snapshots != null) {
            // Read on the leaf's snapshot-read thread; a channel takes writes from any thread.
            snapshots.handle(write, response -> ctx.channel().writeAndFlush(
                    Frame.newBuilder().setWriteResult(response).build(), ctx.voidPromise()));
            return;
        }
        if (role == Role.REPLICA_COPIES && live != null && !write.getPrimary()) {
            // A primary's numbered copy: answered straight on the channel (no root id to batch under).
            live.handle(write, response -> ctx.channel().writeAndFlush(
                    Frame.newBuilder().setWriteResult(response).build(), ctx.voidPromise()));
            return;
        }
        if (role != Role.ROOT || live == null) {
            unserved(ctx, Frame.newBuilder().setWriteResult(WriteResponse.newBuilder()
                    .setRequestId(write.getRequestId())
                    .setPartition(write.getPartition())
                    .setStatus(Status.NOT_ASSIGNED)
                    .setError(role != Role.ROOT ? unservedReason() : "this leaf takes no writes")).build());
            return;
        }
        live.handle(write, response -> replies.send(Frame.newBuilder().setWriteResult(response).build()));
    }

    private void hello(ChannelHandlerContext ctx, Hello hello) {
        if (role != Role.AWAITING_HELLO) {
            protocolError(ctx, "a second Hello");
            return;
        }
        String peer = (hello.getRole() == ConnectionRole.ROOT ? "root " : "leaf ") + ctx.channel().remoteAddress();
        String problem = Protocol.mismatch(hello.getProtocolVersion(), peer, "this leaf");
        if (problem == null && hello.getRole() == ConnectionRole.ROOT && hello.getRootId() == 0) {
            problem = peer + " sent root_id 0 (expected: the root's non-zero id)";
        }
        String secretProblem = Protocol.secretProblem(leaf.clusterSecret(), hello.getClusterSecret(), peer);
        if (secretProblem != null) {
            problem = secretProblem;
            closeAfterAnswers = true;
        }
        HelloAck.Builder ack = HelloAck.newBuilder()
                .setProtocolVersion(Protocol.VERSION)
                .setIndex(leaf.partitions().identity())
                .setHttpAddress(httpAddress)
                .setTakesSearchParts(true)
                .setAnswersPings(true);
        if (problem == null) {
            // Told only to a peer it serves: a root compares it with the node membership knows at this address.
            ack.setNodeId(nodeId.get());
        }
        if (problem != null) {
            refuse(ctx, problem);
            ack.setError(problem);
        } else if (hello.getRole() == ConnectionRole.ROOT) {
            role = Role.ROOT;
            replies = new OutboundBatcher(ctx.channel(), hello.getRootId(), leaf.counters().timings);
            leaf.drain().rootConnected(ctx.channel());
        } else if (hello.getRole() == ConnectionRole.PEER_RECOVERY) {
            role = Role.PEER_RECOVERY;
            var live = leaf.partitions().live();
            snapshots = live == null ? null : live.snapshotSession();
        } else if (hello.getRole() == ConnectionRole.REPLICA_COPIES) {
            role = Role.REPLICA_COPIES;
        } else {
            role = Role.TWIN_CANCELS;
        }
        ctx.write(Frame.newBuilder().setHelloAck(ack).build(), ctx.voidPromise());
        wroteInThisRead = true;
    }

    /** Refuses the connection's requests from now on, and says so in the log. */
    private void refuse(ChannelHandlerContext ctx, String problem) {
        role = Role.REFUSED;
        refusal = problem;
        LOG.log(System.Logger.Level.WARNING, "refusing the connection from {0}: {1}", ctx.channel().remoteAddress(),
                problem);
    }

    private String unservedReason() {
        return role == Role.REFUSED ? "this leaf refused the connection: " + refusal
                : role == Role.TWIN_CANCELS ? "a connection for twin cancels carries no requests"
                : role == Role.PEER_RECOVERY ? (snapshots == null ? "this leaf takes no writes, so has no snapshots"
                        : "a peer-recovery connection carries only LIST_SNAPSHOT and READ_SNAPSHOT_FILE")
                : role == Role.REPLICA_COPIES ? "a replica-copies connection carries only a primary's numbered"
                        + " copies (primary=false) to a leaf that takes writes"
                : "no Hello on this connection (expected: a Hello first)";
    }

    private void unserved(ChannelHandlerContext ctx, Frame answer) {
        ctx.write(answer, ctx.voidPromise());
        wroteInThisRead = true;
    }

    private void protocolError(ChannelHandlerContext ctx, String what) {
        LOG.log(System.Logger.Level.WARNING, "closing {0}: {1}", ctx.channel().remoteAddress(), what);
        ctx.close();
    }

    private void submit(ChannelHandlerContext ctx, LeafTask task, boolean tied) {
        if (!leaf.inflight().register(task, tied)) {
            return; // its twin's cancel came first: answered CANCELLED
        }
        if (inlineCheap && !tied && ranInline(task)) {
            return;
        }
        if (!enqueue(task)) {
            ctx.write(task.busy(), ctx.voidPromise());
            wroteInThisRead = true;
        }
    }

    /**
     * Experimental, off by default ({@code --inline-cheap}; with it off, submit pays one final field's
     * test for it): a known-cheap search with nothing queued and a worker idle runs here, on the event
     * loop, saving the hop to the worker. Not yet measured.
     *
     * @return whether it ran here (it answered, or moved to the lane); false: queue it
     */
    private boolean ranInline(LeafTask task) {
        if (!(task instanceof SearchTask search && search.mayRunInline()
                && leaf.scheduler().tryStartInline(task.priority()))) {
            return false;
        }
        try {
            search.runInline();
        } catch (RuntimeException e) {
            // A task answers its own errors, as on a worker; reaching here is a bug, but the connection lives on.
            LOG.log(System.Logger.Level.ERROR, "search task failed inline", e);
        } finally {
            leaf.scheduler().inlineEnded(task.priority());
        }
        return true;
    }

    /** Queues a registered task; false when its class's queue is full and the caller must answer {@link LeafTask#busy()}. */
    private boolean enqueue(LeafTask task) {
        return leaf.scheduler().trySubmit(task, task.priority(), task.deadlineNanos(), task::expireQueued) || !task.refuse();
    }

    /**
     * Registers a tied request now, so that its twin's cancel finds it (and drops it, answering
     * CANCELLED), and queues it when its grace has passed, unless it was dropped meanwhile.
     */
    private void submitAfterGrace(ChannelHandlerContext ctx, SearchTask task, long graceNanos) {
        if (!leaf.inflight().register(task, true)) {
            return;
        }
        leaf.counters().twinGraceWaits.increment();
        ctx.executor().schedule(() -> {
            // Dropped meanwhile (by its twin's cancel, the root's, or the connection closing): done.
            if (task.isQueued() && !enqueue(task)) {
                replies.send(task.busy());
            }
        }, graceNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (wroteInThisRead) {
            wroteInThisRead = false;
            ctx.flush();
        }
        if (closeAfterAnswers) {
            ctx.close();
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        // Nobody is left to read the answers of this connection's queued work.
        if (replies != null) {
            leaf.inflight().abandonAll(replies);
        }
        if (snapshots != null) {
            // Off the event loop: unpinning may delete the snapshot this connection was copying.
            SnapshotFiles.Session done = snapshots;
            snapshots = null;
            admin.execute(done::close);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, "closing connection from {0}: {1}",
                ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
