package io.hedgerow.root.write;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.IndexIdentity;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.root.cluster.LeafAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * The root's connection to one leaf for writes, apart from the search connections (writes fsync
 * at the leaf and take longer; they should not queue behind searches nor hold them up). Connects
 * on first use and again after it drops; a request sent while it is down fails at once, which the
 * caller takes as that replica failing. The leaf's Hello answer is checked as the search
 * connections check it: its protocol version, and the index it serves ({@code indexCheck}), so a
 * leaf serving another index or build is never written to.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. Every request is answered exactly once: by the
 * leaf, by the connection closing, or by its timeout, which counts from the send, connecting and the
 * handshake included (a leaf paused with SIGSTOP accepts a connection in its kernel and never says
 * Hello: its requests still end at their timeout).
 */
final class WriteLink {
    private final LeafAddress address;
    private final Bootstrap bootstrap;
    private final EventLoopGroup group;
    /** Why this root must not use the leaf serving an index ({@code leaf, identity}); null when it may. */
    private final BiFunction<String, IndexIdentity, String> indexCheck;
    /** This root's Hello (its id and the cluster's secret). */
    private final Frame hello;
    private final Map<Long, CompletableFuture<WriteResponse>> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);
    private CompletableFuture<Channel> ready;

    /** A link that does not check the leaf's index (a test's, or a tool's that knows its leaf). */
    WriteLink(LeafAddress address, EventLoopGroup group, Class<? extends Channel> channelClass, Frame hello,
            int maxFrameBytes, LinkTls tls) {
        this(address, group, channelClass, hello, maxFrameBytes, tls, null);
    }

    WriteLink(LeafAddress address, EventLoopGroup group, Class<? extends Channel> channelClass, Frame hello,
            int maxFrameBytes, LinkTls tls, BiFunction<String, IndexIdentity, String> indexCheck) {
        this.address = address;
        this.hello = hello;
        this.group = group;
        this.indexCheck = indexCheck;
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        WireCodec.install(ch.pipeline(), maxFrameBytes);
                        tls.dialled(ch, address.host(), address.port());
                        ch.pipeline().addLast("writes", new Answers());
                    }
                });
    }

    LeafAddress address() {
        return address;
    }

    /** Sends a request (its id is set here) and completes with the leaf's answer. */
    CompletableFuture<WriteResponse> send(WriteRequest.Builder request, Duration timeout) {
        long id = nextRequestId.getAndIncrement();
        WriteRequest built = request.setRequestId(id).build();
        CompletableFuture<WriteResponse> answer = new CompletableFuture<>();
        pending.put(id, answer);
        answer.whenComplete((response, failure) -> pending.remove(id));
        CompletableFuture<Channel> connection;
        try {
            // From the send: a connection whose handshake never ends (a paused leaf) ends the request too.
            ScheduledFuture<?> expiry = group.next().schedule(() -> answer.completeExceptionally(
                    new TimeoutException("leaf " + address + " did not answer write request " + id + " within "
                            + timeout.toMillis() + " ms")), timeout.toNanos(), TimeUnit.NANOSECONDS);
            // An answered write drops its timer, so answered writes do not pile up timers for their timeout.
            answer.whenComplete((response, failed) -> expiry.cancel(false));
            connection = connection();
        } catch (RuntimeException e) {
            // The event loops are shutting down (the root is closing).
            answer.completeExceptionally(new IOException("cannot connect to leaf " + address + ": " + e, e));
            return answer;
        }
        connection.whenComplete((channel, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(new IOException("leaf " + address + " is not reachable for writes: "
                        + failure.getMessage(), failure));
                return;
            }
            if (answer.isDone()) {
                return; // timed out while connecting
            }
            channel.writeAndFlush(Frame.newBuilder().setWrite(built).build()).addListener(written -> {
                if (!written.isSuccess()) {
                    answer.completeExceptionally(new IOException("sending to leaf " + address + " failed: "
                            + written.cause(), written.cause()));
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
        bootstrap.connect(address.host(), address.port()).addListener(connected -> {
            if (!connected.isSuccess()) {
                connecting.completeExceptionally(connected.cause());
                return;
            }
            Channel channel = ((io.netty.channel.ChannelFuture) connected).channel();
            channel.attr(Answers.HELLO).set(connecting);
            channel.writeAndFlush(hello);
        });
        return connecting;
    }

    /** Matches answers to requests; the HelloAck completes the connection. */
    private final class Answers extends SimpleChannelInboundHandler<Frame> {
        static final io.netty.util.AttributeKey<CompletableFuture<Channel>> HELLO =
                io.netty.util.AttributeKey.valueOf("hedgerow.writeHello");

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            switch (frame.getBodyCase()) {
                case HELLO_ACK -> {
                    // The same check as the search connections' (LeafConnection): the leaf's refusal, or
                    // another protocol version.
                    CompletableFuture<Channel> hello = ctx.channel().attr(HELLO).get();
                    String problem = Protocol.helloAckProblem(frame.getHelloAck(), "leaf " + address);
                    if (problem == null && indexCheck != null) {
                        // Writes to a leaf serving another index (or build) would land in the wrong copy.
                        problem = indexCheck.apply(address.toString(), frame.getHelloAck().getIndex());
                    }
                    if (problem == null) {
                        hello.complete(ctx.channel());
                    } else {
                        hello.completeExceptionally(new IOException(problem));
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
            CompletableFuture<Channel> hello = ctx.channel().attr(HELLO).get();
            if (hello != null) {
                hello.completeExceptionally(new IOException("leaf " + address + " closed the connection"));
            }
            // Requests of this channel will never be answered; any other channel's are few and retried.
            IOException closed = new IOException("the connection to leaf " + address + " closed");
            pending.values().forEach(answer -> answer.completeExceptionally(closed));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    void close() {
        CompletableFuture<Channel> current;
        synchronized (this) {
            current = ready;
        }
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            current.join().close();
        }
    }
}
