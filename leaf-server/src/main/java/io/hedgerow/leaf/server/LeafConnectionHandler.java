package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.Frame;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.concurrent.Executor;

/**
 * Serves one connection from a root, or from another leaf (which sends only twin cancels):
 * searches and fetches go to the shared scheduler, cancels to the in-flight registry, assignments
 * to the admin thread, fault injections to {@link FaultControl} (answered at once). A query of death
 * halts the process here, before its task exists. Nothing here
 * blocks the event loop. A malformed or oversized frame closes this connection only.
 */
final class LeafConnectionHandler extends SimpleChannelInboundHandler<Frame> {
    private static final System.Logger LOG = System.getLogger(LeafConnectionHandler.class.getName());

    private final LeafContext leaf;
    private final Executor admin;
    private OutboundBatcher replies;
    private boolean wroteInThisRead;

    LeafConnectionHandler(LeafContext leaf, Executor admin) {
        this.leaf = leaf;
        this.admin = admin;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        replies = new OutboundBatcher(ctx.channel());
        super.channelActive(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
        switch (frame.getBodyCase()) {
            case SEARCH -> {
                // Checked before any work, as a crash bug in the query parser would strike.
                if (!leaf.queryOfDeath().check(frame.getSearch().getQuery(), "search", frame.getSearch().getRequestId())) {
                    submit(ctx, new SearchTask(frame.getSearch(), replies, leaf, leaf.ticker().nanoTime()),
                            frame.getSearch().hasTwin());
                }
            }
            case FETCH -> {
                if (!leaf.queryOfDeath().check(frame.getFetch().getQuery(), "fetch", frame.getFetch().getRequestId())) {
                    submit(ctx, new FetchTask(frame.getFetch(), replies, leaf, leaf.ticker().nanoTime()), false);
                }
            }
            case CANCEL -> leaf.inflight().cancel(frame.getCancel());
            case INJECT -> {
                ctx.write(Frame.newBuilder().setInjectAck(leaf.faults().apply(frame.getInject())).build(), ctx.voidPromise());
                wroteInThisRead = true;
            }
            case ASSIGN -> admin.execute(() -> {
                AssignAck ack = leaf.partitions().assign(frame.getAssign());
                replies.send(Frame.newBuilder().setAssignAck(ack).build());
            });
            default -> {
                LOG.log(System.Logger.Level.WARNING, "closing {0}: unexpected {1} frame",
                        ctx.channel().remoteAddress(), frame.getBodyCase());
                ctx.close();
            }
        }
    }

    private void submit(ChannelHandlerContext ctx, LeafTask task, boolean tied) {
        if (!leaf.inflight().register(task, tied)) {
            return; // its twin's cancel came first: answered CANCELLED
        }
        if (!leaf.scheduler().trySubmit(task, task.priority(), task.deadlineNanos(), task::expireQueued) && task.refuse()) {
            ctx.write(task.busy(), ctx.voidPromise());
            wroteInThisRead = true;
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (wroteInThisRead) {
            wroteInThisRead = false;
            ctx.flush();
        }
        super.channelReadComplete(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        // Nobody is left to read the answers of this connection's queued work.
        leaf.inflight().abandonAll(replies);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, "closing connection from {0}: {1}",
                ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
