package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.leaf.write.PeerFiles;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This leaf's connections to other leaves for peer recovery ({@link PeerFiles}): one per restore,
 * opened with a Hello in the {@code PEER_RECOVERY} role carrying the cluster's secret, on the leaf's
 * own event loops, and closed when the restore is done (which releases the source's snapshot).
 *
 * <p><b>Assumptions and guarantees.</b> {@link #open} and {@link Session#call} block their caller
 * (the leaf's restore thread), each for at most {@code timeout}; never call them on an event loop.
 * A session's answers are matched to its requests by id; a closed connection fails every request
 * waiting on it at once.
 */
final class PeerFileLinks implements PeerFiles {
    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final int maxFrameBytes;
    private final Frame hello;
    private final LinkTls tls;
    private final Duration timeout;

    PeerFileLinks(EventLoopGroup group, Class<? extends Channel> channelClass, int maxFrameBytes, String clusterSecret,
            LinkTls tls, Duration timeout) {
        this.group = group;
        this.channelClass = channelClass;
        this.maxFrameBytes = maxFrameBytes;
        this.hello = Protocol.peerRecoveryHello(clusterSecret);
        this.tls = tls;
        this.timeout = timeout;
    }

    @Override
    public Session open(String address) throws IOException {
        HostPort source = HostPort.parse(address);
        if (source == null) {
            throw new IOException("source leaf address '" + address + "' (expected: host:port)");
        }
        Answers answers = new Answers(address);
        ChannelFuture connect = new Bootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) timeout.toMillis())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        WireCodec.install(ch.pipeline(), maxFrameBytes);
                        tls.dialled(ch, source.host(), source.port());
                        ch.pipeline().addLast("recovery", answers);
                    }
                })
                .connect(source.host(), source.port());
        if (!connect.awaitUninterruptibly(timeout.toMillis() + 1000) || !connect.isSuccess()) {
            connect.channel().close();
            throw new IOException("cannot connect to source leaf " + address + ": "
                    + (connect.cause() == null ? "no answer in " + timeout : connect.cause().toString()));
        }
        Channel channel = connect.channel();
        channel.writeAndFlush(hello);
        HelloAck ack = await(answers.helloAck, channel, "the HelloAck of source leaf " + address);
        if (!ack.getError().isEmpty()) {
            channel.close();
            throw new IOException("source leaf " + address + " refused the connection: " + ack.getError());
        }
        return new Session() {
            private final AtomicLong nextId = new AtomicLong(1);

            @Override
            public WriteResponse call(WriteRequest request) throws IOException {
                long id = nextId.getAndIncrement();
                CompletableFuture<WriteResponse> answer = new CompletableFuture<>();
                answers.pending.put(id, answer);
                if (!channel.isActive()) {
                    answers.pending.remove(id);
                    throw new IOException("the connection to source leaf " + address + " is closed");
                }
                channel.writeAndFlush(Frame.newBuilder().setWrite(request.toBuilder().setRequestId(id)).build());
                return await(answer, channel, request.getOps(0).getKind() + " from source leaf " + address);
            }

            @Override
            public void close() {
                channel.close();
            }
        };
    }

    private <T> T await(CompletableFuture<T> answer, Channel channel, String what) throws IOException {
        if (channel.eventLoop().inEventLoop()) {
            throw new IllegalStateException("waiting for " + what + " on an event loop (expected: the restore thread)");
        }
        try {
            return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            channel.close();
            throw new IOException("interrupted waiting for " + what, e);
        } catch (TimeoutException e) {
            channel.close();
            throw new IOException("no answer in " + timeout + " to " + what);
        } catch (ExecutionException e) {
            throw new IOException(what + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** The answers on one connection, handed to whoever waits for them. */
    private static final class Answers extends SimpleChannelInboundHandler<Frame> {
        final CompletableFuture<HelloAck> helloAck = new CompletableFuture<>();
        final Map<Long, CompletableFuture<WriteResponse>> pending = new ConcurrentHashMap<>();
        private final String address;

        Answers(String address) {
            this.address = address;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
            switch (frame.getBodyCase()) {
                case HELLO_ACK -> helloAck.complete(frame.getHelloAck());
                case WRITE_RESULT -> {
                    CompletableFuture<WriteResponse> answer = pending.remove(frame.getWriteResult().getRequestId());
                    if (answer != null) {
                        answer.complete(frame.getWriteResult());
                    }
                }
                default -> ctx.close(); // nothing else belongs on this connection
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            IOException closed = new IOException("the connection to source leaf " + address + " closed");
            helloAck.completeExceptionally(closed);
            pending.values().forEach(answer -> answer.completeExceptionally(closed));
            pending.clear();
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
