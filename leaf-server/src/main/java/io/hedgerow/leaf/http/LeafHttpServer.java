package io.hedgerow.leaf.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A small HTTP/1.1 server for a leaf's probes and metrics: {@code GET /health}, {@code /ready},
 * {@code /metrics}; anything else is 404, any other method 405. It knows nothing of the leaf but
 * the three answers it is given.
 *
 * <p><b>Assumptions and guarantees.</b> Handlers run on the group it is given (the leaf gives it a
 * one-thread group of its own, so a scrape's few milliseconds never delay a search's answer on the
 * leaf's I/O loop). {@code liveness} must not block: it returns a stage that completes when the
 * leaf's own event loops have run a task, and the answer is written when it does. {@code scrape}
 * runs on this server's loop: it must only read (Micrometer's scrape does).
 */
public final class LeafHttpServer implements AutoCloseable {
    /** The Prometheus text exposition format. */
    static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final int MAX_REQUEST_BYTES = 8192;

    private final Channel channel;

    private LeafHttpServer(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds {@code host:port} (port 0: a free one).
     *
     * @param liveness  completes when the leaf's event loops work; exceptionally when they do not
     * @param readiness what {@code /ready} says now
     * @param scrape    the {@code /metrics} body in Prometheus text format
     * @throws IOException when the port cannot be bound
     */
    public static LeafHttpServer start(EventLoopGroup group, Class<? extends ServerChannel> channelClass, String host,
            int port, Supplier<CompletionStage<?>> liveness, Supplier<ProbeState> readiness, Supplier<String> scrape)
            throws IOException {
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(channelClass)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                                    new Handler(liveness, readiness, scrape));
                        }
                    })
                    .bind(host, port)
                    .syncUninterruptibly()
                    .channel();
            return new LeafHttpServer(channel);
        } catch (RuntimeException e) {
            throw new IOException("cannot listen for HTTP on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Stops listening; open connections close with the group. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<CompletionStage<?>> liveness;
        private final Supplier<ProbeState> readiness;
        private final Supplier<String> scrape;

        Handler(Supplier<CompletionStage<?>> liveness, Supplier<ProbeState> readiness, Supplier<String> scrape) {
            this.liveness = liveness;
            this.readiness = readiness;
            this.scrape = scrape;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (!request.decoderResult().isSuccess()) {
                send(ctx, false, HttpResponseStatus.BAD_REQUEST, JSON_TYPE, error("bad_request", "malformed request"));
                return;
            }
            String path = new QueryStringDecoder(request.uri()).path();
            if (!path.equals("/health") && !path.equals("/ready") && !path.equals("/metrics")) {
                send(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, JSON_TYPE, error("not_found",
                        "no such path: " + path + " (expected: /health, /ready or /metrics)"));
                return;
            }
            if (request.method() != HttpMethod.GET) {
                send(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, JSON_TYPE, error("method_not_allowed",
                        request.method() + " " + path + " (expected: GET)"));
                return;
            }
            switch (path) {
                case "/health" -> liveness.get().whenComplete((ignored, failure) -> ctx.executor().execute(() -> {
                    if (failure == null) {
                        send(ctx, keepAlive, HttpResponseStatus.OK, JSON_TYPE, "{\"status\":\"ok\"}");
                    } else {
                        send(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, JSON_TYPE,
                                error("not_alive", String.valueOf(failure.getMessage())));
                    }
                }));
                case "/ready" -> {
                    ProbeState state = readiness.get();
                    send(ctx, keepAlive, state.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                            JSON_TYPE, "{\"ready\":" + state.ready() + ",\"status\":" + quote(state.status())
                                    + ",\"detail\":" + quote(state.detail()) + "}");
                }
                default -> send(ctx, keepAlive, HttpResponseStatus.OK, PROMETHEUS_TYPE, scrape.get());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        private static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status,
                String contentType, String body) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    ByteBufUtil.writeUtf8(ctx.alloc(), body));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                ctx.writeAndFlush(response, ctx.voidPromise());
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static String error(String code, String detail) {
            return "{\"error\":" + quote(code) + ",\"detail\":" + quote(detail) + "}";
        }

        /** A JSON string: quotes, backslashes and control characters escaped (Jackson's encoder). */
        static String quote(String value) {
            return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(value)) + '"';
        }
    }
}
