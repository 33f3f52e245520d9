package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.write.PeerWrites;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A primary leaf's links to its replicas' leaves for the copies of its numbered batches
 * ({@link PeerWrites}, {@link io.hedgerow.leaf.write.ReplicationGroup}): one connection per peer
 * address, opened on first use (and again after it closed) with a Hello in the
 * {@code REPLICA_COPIES} role carrying the cluster's secret, on the leaf's own event loops.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #send} never blocks. Order among
 * requests sent while a connection is being made is not kept: the copies of one partition to one
 * replica go one at a time ({@code ReplicationGroup}), which is the order that matters. Every request is answered exactly
 * once: by the peer, by the connection closing, or at its timeout, counted from the send with the
 * connection and handshake included (a peer paused with SIGSTOP accepts in its kernel and never
 * answers the Hello).
 */
final class PeerWriteLinks implements PeerWrites {
    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final int maxFrameBytes;
    private final Frame hello;
    private final LinkTls tls;
    private final Map<String, Link> links = new ConcurrentHashMap<>();
    private final AtomicLong nextRequestId = new AtomicLong(1);

    PeerWriteLinks(EventLoopGroup group, Class<? extends Channel> channelClass, int maxFrameBytes, String clusterSecret,
            LinkTls tls) {
        this.group = group;
        this.channelClass = channelClass;
        this.maxFrameBytes = maxFrameBytes;
        this.hello = Protocol.replicaCopiesHello(clusterSecret);
        this.tls = tls;
    }

    @Override
    public CompletableFuture<WriteResponse> send(String address, WriteRequest request, long timeoutNanos) {
        CompletableFuture<WriteResponse> answer = new CompletableFuture<>();
        HostPort peer = HostPort.parse(address);
        if (peer == null) {
            answer.completeExceptionally(new IOException("replica leaf address '" + address + "' (expected: host:port)"));
            return answer;
        }
        long id = nextRequestId.getAndIncrement();
        WriteRequest built = request.toBuilder().setRequestId(id).build();
        Link link = links.computeIfAbsent(address, a -> new Link(a, peer));
        try {
            ScheduledFuture<?> expiry = group.next().schedule(() -> answer.completeExceptionally(new TimeoutException(
                    "replica leaf " + address + " did not answer copy " + id + " of partition " + request.getPartition()
                            + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms")),
                    timeoutNanos, TimeUnit.NANOSECONDS);
            answer.whenComplete((response, failure) -> expiry.cancel(false));
        } catch (RuntimeException e) {
            answer.completeExceptionally(new IOException("cannot reach replica leaf " + address + ": " + e, e));
            return answer;
        }
        link.send(id, built, answer);
        return answer;
    }

    /** The connection to one peer and the copies waiting for its answers. */
    private final class Link {
        private final String address;
        private final Bootstrap bootstrap;
        private final Map<Long, CompletableFuture<WriteResponse>> pending = new ConcurrentHashMap<>();
        private CompletableFuture<Channel> ready;

        Link(String address, HostPort peer) {
            this.address = address;
            this.bootstrap = new Bootstrap()
                    .group(group)
                    .channel(channelClass)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
                    .remoteAddress(peer.host(), peer.port())
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            WireCodec.install(ch.pipeline(), maxFrameBytes);
                            tls.dialled(ch, peer.host(), peer.port());
                            ch.pipeline().addLast("copies", new Answers(Link.this));
                        }
                    });
        }

        void send(long id, WriteRequest request, CompletableFuture<WriteResponse> answer) {
            pending.put(id, answer);
            answer.whenComplete((response, failure) -> pending.remove(id));
            CompletableFuture<Channel> connection;
            synchronized (this) {
                connection = connection();
                connection.thenAccept(channel -> {
                    if (!answer.isDone()) {
                        channel.writeAndFlush(Frame.newBuilder().setWrite(request).build()).addListener(written -> {
                            if (!written.isSuccess()) {
                                answer.completeExceptionally(new IOException("sending to replica leaf " + address
                                        + " failed: " + written.cause(), written.cause()));
                            }
                        });
                    }
                });
            }
            connection.exceptionally(failure -> {
                answer.completeExceptionally(new IOException("replica leaf " + address + " is not reachable: "
                        + failure.getMessage(), failure));
                return null;
            });
        }

        /** The caller holds this link's monitor. */
        private CompletableFuture<Channel> connection() {
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
                channel.attr(Answers.HELLO).set(connecting);
                channel.writeAndFlush(hello);
            });
            return connecting;
        }

        void closed() {
            IOException closed = new IOException("the connection to replica leaf " + address + " closed");
            pending.values().forEach(answer -> answer.completeExceptionally(closed));
        }
    }

    /** Matches answers to copies; the HelloAck completes the connection. */
    private static final class Answers extends SimpleChannelInboundHandler<Frame> {
        static final io.netty.util.AttributeKey<CompletableFuture<Channel>> HELLO =
                io.netty.util.AttributeKey.valueOf("hedgerow.replicaCopiesHello");
        private final Link link;

        Answers(Link link) {
            this.link = link;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            switch (frame.getBodyCase()) {
                case HELLO_ACK -> {
                    CompletableFuture<Channel> hello = ctx.channel().attr(HELLO).get();
                    String problem = Protocol.helloAckProblem(frame.getHelloAck(), "replica leaf " + link.address);
                    if (problem == null) {
                        hello.complete(ctx.channel());
                    } else {
                        hello.completeExceptionally(new IOException(problem));
                        ctx.close();
                    }
                }
                case WRITE_RESULT -> {
                    CompletableFuture<WriteResponse> answer = link.pending.get(frame.getWriteResult().getRequestId());
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
                hello.completeExceptionally(new IOException("replica leaf " + link.address + " closed the connection"));
            }
            link.closed();
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
