package io.hedgerow.root.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one HTTP client may cost the root, so that idle, slow or hostile clients cannot take
 * service from the others ({@link HttpSettings}):
 * <ul>
 *   <li>at most {@code maxConnections} open: one more is closed as soon as it is accepted;</li>
 *   <li>a connection with nothing read or written for {@code idleTimeout} is closed, if it is
 *       between requests;</li>
 *   <li>a request must arrive whole within {@code requestTimeout} of its first byte (a client
 *       trickling headers a byte at a time holds a connection that long at most);</li>
 *   <li>an answer not taken by the client within {@code writeTimeout} closes the connection;</li>
 *   <li>while the connection's outbound buffer is over its high water mark (the client sends but
 *       does not read), reading from it pauses, so the root's memory does not grow with it.</li>
 * </ul>
 *
 * <p><b>Assumptions and guarantees.</b> One instance per server; {@link #admit} runs on the
 * accepting event loops concurrently (an atomic count), the per-connection handlers on their
 * connection's loop only.
 */
final class ConnectionLimits {
    private static final System.Logger LOG = System.getLogger(ConnectionLimits.class.getName());

    private final HttpSettings settings;
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final ChannelGroup channels = new DefaultChannelGroup("http", GlobalEventExecutor.INSTANCE);

    ConnectionLimits(HttpSettings settings) {
        this.settings = settings;
    }

    /** Counts a new connection in; closes it at once (and returns false) when the cap is reached. */
    boolean admit(Channel channel) {
        if (open.incrementAndGet() > settings.maxConnections()) {
            open.decrementAndGet();
            refused.increment();
            LOG.log(System.Logger.Level.DEBUG, () -> "refusing HTTP connection from " + channel.remoteAddress() + ": "
                    + settings.maxConnections() + " connections open");
            channel.close();
            return false;
        }
        channels.add(channel);
        channel.closeFuture().addListener(closed -> open.decrementAndGet());
        return true;
    }

    /**
     * Adds the handlers that go first in the pipeline: write timeout, idle timeout, backpressure,
     * request timer.
     *
     * @return the handler to put after the aggregator, which marks a request arrived whole (and stops
     *         that connection's request timer)
     */
    ChannelHandler install(ChannelPipeline pipeline) {
        RequestDeadline deadline = new RequestDeadline();
        pipeline.addLast("writeTimeout", new WriteTimeoutHandler(settings.writeTimeout().toNanos(), TimeUnit.NANOSECONDS))
                .addLast("idle", new IdleStateHandler(0, 0, settings.idleTimeout().toNanos(), TimeUnit.NANOSECONDS))
                .addLast("idleClose", new IdleClose())
                .addLast("backpressure", new Backpressure())
                .addLast("requestTimeout", deadline);
        return new RequestArrived(deadline);
    }

    int open() {
        return open.get();
    }

    long refused() {
        return refused.sum();
    }

    /** Closes every open connection. */
    void closeAll() {
        channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The open connections (a closed one leaves the group by itself). */
    ChannelGroup channels() {
        return channels;
    }

    /**
     * Whether {@code channel} is between requests: nothing of a next request has arrived, and no
     * request is being answered or held. Call on its event loop.
     */
    static boolean betweenRequests(Channel channel) {
        InOrderResponses order = channel.pipeline().get(InOrderResponses.class);
        boolean arriving = channel.pipeline().get(RequestDeadline.class) instanceof RequestDeadline deadline
                && deadline.timer != null;
        return (order == null || order.idle()) && !arriving;
    }

    /**
     * Closes a connection idle for the idle timeout, between requests only: one whose request is
     * being answered (a rolling restart through {@code /admin} takes minutes) stays open, and the
     * request and write timeouts bound what a client can hold.
     */
    private static final class IdleClose extends ChannelInboundHandlerAdapter {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof IdleStateEvent idle && idle.state() == IdleState.ALL_IDLE) {
                if (betweenRequests(ctx.channel())) {
                    ctx.close();
                }
                return;
            }
            super.userEventTriggered(ctx, event);
        }
    }

    /** Pauses reading while the client does not take what is written to it. */
    private static final class Backpressure extends ChannelDuplexHandler {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
            super.channelWritabilityChanged(ctx);
        }
    }

    /**
     * Arms a timer at the first byte of a request; the request must be whole by then ({@link
     * RequestArrived} disarms it), or the connection is closed.
     */
    final class RequestDeadline extends ChannelInboundHandlerAdapter {
        private ScheduledFuture<?> timer;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (timer == null) {
                timer = ctx.executor().schedule(() -> {
                    LOG.log(System.Logger.Level.DEBUG, () -> "closing HTTP connection " + ctx.channel().remoteAddress()
                            + ": no whole request within " + settings.requestTimeout());
                    ctx.close();
                }, settings.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelRead(msg);
        }

        void arrived() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            arrived();
            super.channelInactive(ctx);
        }
    }

    private static final class RequestArrived extends ChannelInboundHandlerAdapter {
        private final RequestDeadline deadline;

        RequestArrived(RequestDeadline deadline) {
            this.deadline = deadline;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof FullHttpRequest) {
                deadline.arrived();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
