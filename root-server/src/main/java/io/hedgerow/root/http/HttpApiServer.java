package io.hedgerow.root.http;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.api.HedgerowClient;
import io.hedgerow.root.api.LeafFaults;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.TailGuard;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpExpectationFailedEvent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpContentException;
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
            HedgerowClient client, ClusterState cluster, RootMetrics metrics, LeafAdmin admin, LeafFaults faults,
            TailGuard tail) throws IOException {
        return start(group, transport, host, port, client, cluster, metrics, admin, faults, tail, null);
    }

    /** As above, with live writes under {@code /documents} when {@code documents} is not null. */
    public static HttpApiServer start(EventLoopGroup group, Transport transport, String host, int port,
            HedgerowClient client, ClusterState cluster, RootMetrics metrics, LeafAdmin admin, LeafFaults faults,
            TailGuard tail, io.hedgerow.root.write.DocumentWriter documents) throws IOException {
        HttpApiHandler api = new HttpApiHandler(client, cluster, metrics, admin, faults, tail,
                documents == null ? null : new DocumentRoutes(documents));
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            var timer = RequestTimer.install(ch, Ticker.system());
                            ch.pipeline()
                                    .addLast("reads", timer[0])
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("requests", timer[1])
                                    .addLast("aggregator", new JsonErrorAggregator())
                                    .addLast("inOrder", new InOrderResponses())
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

    /**
     * Refuses bodies over {@link #MAX_BODY_BYTES}: hands the API the request with no body and a
     * {@link TooLongHttpContentException} as its decoder result, so the API answers it with a JSON
     * 413, in turn with the other requests of the connection, and counts it.
     *
     * <p>The connection stays open when the client asked for keep-alive: the aggregator skips the
     * rest of the refused body and reads the next request. (Closing at once resets a connection the
     * client is still writing the body to, and the client sees a broken pipe instead of the 413.)
     * A client that sent {@code Expect: 100-continue} gets the 413 instead of a 100 and sends no
     * body.
     */
    private static final class JsonErrorAggregator extends HttpObjectAggregator {
        JsonErrorAggregator() {
            super(MAX_BODY_BYTES);
        }

        @Override
        protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
            if (HttpUtil.is100ContinueExpected(start) && HttpUtil.getContentLength(start, -1L) > maxContentLength) {
                return null; // no interim response: handleOversizedMessage answers with the 413
            }
            return super.newContinueResponse(start, maxContentLength, pipeline);
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            if (HttpUtil.is100ContinueExpected(oversized)) {
                // Tells the HTTP decoder that no body follows, as Netty's own 413 does.
                ctx.pipeline().fireUserEventTriggered(HttpExpectationFailedEvent.INSTANCE);
            }
            HttpRequest request = (HttpRequest) oversized;
            HttpHeaders headers = request.headers().copy().remove(HttpHeaderNames.EXPECT);
            FullHttpRequest refused = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                    request.uri(), Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE);
            refused.setDecoderResult(DecoderResult.failure(new TooLongHttpContentException(
                    "request body is larger than " + MAX_BODY_BYTES + " bytes")));
            ctx.fireChannelRead(refused);
        }
    }
}
