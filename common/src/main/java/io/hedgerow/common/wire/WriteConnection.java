package io.hedgerow.common.wire;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One connection to a leaf for write requests (a root's writes, a primary's copies to its replicas):
 * opened on first use, and again after it closed, with a Hello whose answer is checked (the leaf's
 * refusal, another protocol version, and {@code ackCheck}); answers are matched to requests by id.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #send} never blocks. Every request is
 * answered exactly once: by the leaf, by the connection closing, or at its timeout, which counts from
 * the send with connecting and the handshake included (a leaf paused with SIGSTOP accepts a connection
 * in its kernel and never answers the Hello: its requests still end at their timeout). Requests sent
 * while the connection is being made may go out in any order.
 */
public final class WriteConnection {
    private static final AttributeKey<CompletableFuture<Channel>> HELLO = AttributeKey.valueOf("hedgerow.writeHello");

    private final String peer;
    private final Frame hello;
    private final Function<HelloAck, String> ackCheck;
    private final EventLoopGroup group;
    private final Bootstrap bootstrap;
    private final Map<Long, CompletableFuture<WriteResponse>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);
    private CompletableFuture<Channel> ready;

    /**
     * @param peer     the leaf as messages name it ("leaf 10.0.0.1:9100")
     * @param ackCheck why the leaf's HelloAck rules it out besides refusal and protocol (null: it
     *                 does not); null when nothing else is checked
     */
    public WriteConnection(String peer, String host, int port, EventLoopGroup group,
            Class<? extends Channel> channelClass, int maxFrameBytes, LinkTls tls, Frame hello,
            Function<HelloAck, String> ackCheck) {
        this.peer = peer;
        this.hello = hello;
        this.ackCheck = ackCheck;
        this.group = group;
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
                .remoteAddress(host, port)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        WireCodec.install(ch.pipeline(), maxFrameBytes);
                        tls.dialled(ch, host, port);
                        ch.pipeline().addLast("writes", new Answers());
                    }
                });
    }

    /** Sends {@code request} (its id is set here) and completes with the leaf's answer. */
    public CompletableFuture<WriteResponse> send(WriteRequest.Builder request, long timeoutNanos) {
        long id = nextRequestId.getAndIncrement();
        WriteRequest built = request.setRequestId(id).build();
        CompletableFuture<WriteResponse> answer = new CompletableFuture<>();
        pending.put(id, answer);
        answer.whenComplete((response, failure) -> pending.remove(id));
        CompletableFuture<Channel> connection;
        try {
            ScheduledFuture<?> expiry = group.next().schedule(() -> answer.completeExceptionally(
                    new TimeoutException(peer + " did not answer write request " + id + " (partition "
                            + request.getPartition() + ") within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                            + " ms")), timeoutNanos, TimeUnit.NANOSECONDS);
            // An answered request drops its timer, so answered requests do not pile up timers.
            answer.whenComplete((response, failed) -> expiry.cancel(false));
            connection = connection();
        } catch (RuntimeException e) {
            // The event loops are shutting down.
            answer.completeExceptionally(new IOException("cannot connect to " + peer + ": " + e, e));
            return answer;
        }
        connection.whenComplete((channel, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(new IOException(peer + " is not reachable for writes: "
                        + failure.getMessage(), failure));
                return;
            }
            if (answer.isDone()) {
                return; // timed out while connecting
            }
            channel.writeAndFlush(Frame.newBuilder().setWrite(built).build()).addListener(written -> {
                if (!written.isSuccess()) {
                    answer.completeExceptionally(new IOException("sending to " + peer + " failed: " + written.cause(),
                            written.cause()));
                }
            });
        });
        return answer;
    }

    private synchronized CompletableFuture<Channel> connection() {
        if (ready != null && !(ready.isDone() && (ready.isCompletedExceptionally() || !ready.join().isActive()))) {
            return ready;
        }
        CompletableFuture<Channel> connecting = new CompletableFuture<>();
        ready = connecting;
        bootstrap.connect().addListener(connected -> {
            if (!connected.isSuccess()) {
                connecting.completeExceptionally(connected.cause());
                return;
            }
            Channel channel = ((ChannelFuture) connected).channel();
            channel.attr(HELLO).set(connecting);
            channel.writeAndFlush(hello);
        });
        return connecting;
    }

    /** Closes the connection if it is open (requests waiting on it fail; the next send opens another). */
    public void close() {
        CompletableFuture<Channel> current;
        synchronized (this) {
            current = ready;
        }
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            current.join().close();
        }
    }

    /** Matches answers to requests; the HelloAck completes the connection. */
    private final class Answers extends SimpleChannelInboundHandler<Frame> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            switch (frame.getBodyCase()) {
                case HELLO_ACK -> {
                    CompletableFuture<Channel> connecting = ctx.channel().attr(HELLO).get();
                    String problem = Protocol.helloAckProblem(frame.getHelloAck(), peer);
                    if (problem == null && ackCheck != null) {
                        problem = ackCheck.apply(frame.getHelloAck());
                    }
                    if (problem == null) {
                        connecting.complete(ctx.channel());
                    } else {
                        connecting.completeExceptionally(new IOException(problem));
                        ctx.close();
                    }
                }
                case WRITE_RESULT -> {
                    CompletableFuture<WriteResponse> answer = pending.get(frame.getWriteResult().getRequestId());
                    if (answer != null) {
                        answer.complete(frame.getWriteResult());
                    }
                }
                default -> {
                    // Nothing else is sent on this connection.
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            CompletableFuture<Channel> connecting = ctx.channel().attr(HELLO).get();
            if (connecting != null) {
                connecting.completeExceptionally(new IOException(peer + " closed the connection"));
            }
            // Requests of this channel will never be answered; any other channel's are few and retried.
            IOException closed = new IOException("the connection to " + peer + " closed");
            pending.values().forEach(answer -> answer.completeExceptionally(closed));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
