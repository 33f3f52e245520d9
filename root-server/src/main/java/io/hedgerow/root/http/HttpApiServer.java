package io.hedgerow.root.http;

import io.hedgerow.common.net.Transport;
import io.hedgerow.root.api.HedgerowClient;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.RootMetrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * The HTTP/1.1 server of the API, on the same event loops as the leaf connections, so a query
 * is parsed, fanned out, merged and answered without leaving its thread.
 */
public final class HttpApiServer implements AutoCloseable {
    /** Request bodies larger than this are refused with 413. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private final Channel serverChannel;

    private HttpApiServer(Channel serverChannel) {
        this.serverChannel = serverChannel;
    }

    /**
     * Binds {@code host:port} (0 picks a free port).
     *
     * @throws BindException with the port and a hint when it is taken
     */
    public static HttpApiServer start(EventLoopGroup group, Transport transport, String host, int port,
            HedgerowClient client, ClusterState cluster, RootMetrics metrics) throws IOException {
        HttpApiHandler api = new HttpApiHandler(client, cluster, metrics);
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline()
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("aggregator", new JsonErrorAggregator())
                                    .addLast("api", api);
                        }
                    })
                    .bind(host, port)
                    .sync()
                    .channel();
            return new HttpApiServer(channel);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding " + host + ":" + port, e);
        } catch (Exception e) {
            if (e instanceof BindException) {
                BindException taken = new BindException("port " + port + " on " + host
                        + " is already in use (choose another with --port)");
                taken.initCause(e);
                throw taken;
            }
            throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
    }

    /** Refuses bodies over {@link #MAX_BODY_BYTES} with a JSON 413, then closes the connection. */
    private static final class JsonErrorAggregator extends HttpObjectAggregator {
        JsonErrorAggregator() {
            super(MAX_BODY_BYTES);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                    JsonResponses.error(ctx.alloc(), "payload_too_large",
                            "request body is larger than " + MAX_BODY_BYTES + " bytes"));
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
