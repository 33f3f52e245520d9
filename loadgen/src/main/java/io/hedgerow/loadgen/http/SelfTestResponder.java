package io.hedgerow.loadgen.http;

import io.hedgerow.common.net.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A trivial HTTP server that answers every request at once with a small fixed JSON body, so a
 * self-test measures the load generator (and the loopback) rather than a search server. It can
 * also be told to stall once, to show that the generator reports a stall instead of hiding it.
 */
public final class SelfTestResponder implements AutoCloseable {
    private static final ByteBuf BODY = Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(
            "{\"took_ms\":0.0,\"tainted\":false,\"hits\":[]}", StandardCharsets.US_ASCII));
    /** Shared by every response (the encoder only reads them), so the responder barely allocates. */
    private static final HttpHeaders HEADERS = new ReadOnlyHttpHeaders(true,
            HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON,
            HttpHeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(BODY.readableBytes())));

    private final EventLoopGroup group;
    private final Channel channel;
    private volatile long stallUntilNanos;

    public SelfTestResponder(Transport transport) {
        this.group = transport.newGroup(1, "selftest-responder");
        Responder responder = new Responder();
        this.channel = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannelClass())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec()).addLast(new HttpObjectAggregator(65536))
                                .addLast(responder);
                    }
                })
                .bind("127.0.0.1", 0)
                .syncUninterruptibly()
                .channel();
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /**
     * Stops answering for {@code millis} from now: requests that arrive meanwhile are answered
     * when the stall ends, as a server paused by a long GC would.
     */
    public void stallFor(long millis) {
        stallUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @ChannelHandler.Sharable
    private final class Responder extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    BODY.duplicate(), HEADERS, EmptyHttpHeaders.INSTANCE);
            long stallLeft = stallUntilNanos - System.nanoTime();
            if (stallLeft > 0) {
                ctx.executor().schedule(() -> ctx.writeAndFlush(response), stallLeft, TimeUnit.NANOSECONDS);
            } else {
                ctx.writeAndFlush(response);
            }
        }
    }
}
