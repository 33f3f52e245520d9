package io.hedgerow.loadgen.http;

import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/1.1 keep-alive client built to load a server without being the bottleneck: one event
 * loop, a pool of connections each carrying one request at a time, no per-request threads, no
 * body parsing beyond a byte search for {@code "tainted":true} (and, in a tainted answer, its coverage).
 *
 * <p>A request goes out on an idle connection, or on a new one while fewer than
 * {@code maxConnections} exist; beyond that it is dropped (the caller counts it), because an
 * open-loop generator must not queue silently.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its event loop: {@link #send} and
 * {@link #inFlight} must be called on {@link #loop()}, and listeners run there.
 */
public final class HttpLoadClient {
    private static final ByteBuf TAINTED = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("\"tainted\":true", StandardCharsets.US_ASCII));

    private final EventLoop loop;
    private final Ticker ticker;
    private final Bootstrap bootstrap;
    private final String host;
    private final int port;
    private final String hostHeader;
    /**
     * The same headers on every request, shared rather than built per request: the encoder only
     * reads them, and fewer allocations mean fewer GC pauses in the generator's own latency.
     */
    private final HttpHeaders requestHeaders;
    /**
     * The headers of a POST, by its body's length: built the first time a length is sent and shared
     * after, as {@link #requestHeaders} are (a run's pre-built bodies have a few hundred lengths).
     */
    private final IntObjectHashMap<HttpHeaders> postHeaders = new IntObjectHashMap<>();
    private final int maxConnections;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final java.util.Set<Connection> all = new java.util.HashSet<>();
    private int connections;
    private int inFlight;

    /**
     * @param ticker the clock of the schedule: a request's send is stamped with it, so its
     *               listener learns how late the send was ({@link ResponseListener#sent})
     */
    public HttpLoadClient(URI target, EventLoop loop, Transport transport, int maxConnections, Ticker ticker) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 1)");
        }
        this.loop = loop;
        this.ticker = ticker;
        this.host = target.getHost();
        this.port = target.getPort() > 0 ? target.getPort() : 80;
        this.hostHeader = host + ":" + port;
        this.requestHeaders = new DefaultHttpHeaders()
                .set(HttpHeaderNames.HOST, hostHeader)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE)
                .set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON);
        this.maxConnections = maxConnections;
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(transport.channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline()
                                .addLast(new HttpClientCodec())
                                .addLast(new HttpObjectAggregator(16 * 1024 * 1024));
                    }
                });
    }

    public EventLoop loop() {
        return loop;
    }

    /** Requests sent and not yet answered. */
    public int inFlight() {
        return inFlight;
    }

    /**
     * Sends {@code GET pathAndQuery}.
     *
     * @return false when every allowed connection is busy: the request was not sent
     */
    public boolean send(String pathAndQuery, long intendedNanos, ResponseListener listener) {
        return send(LoadRequest.get(pathAndQuery), intendedNanos, listener);
    }

    /**
     * Sends {@code request}: a GET, or a POST of its pre-built body.
     *
     * @return false when every allowed connection is busy: the request was not sent
     */
    public boolean send(LoadRequest request, long intendedNanos, ResponseListener listener) {
        Connection connection = idle.pollFirst();
        if (connection == null) {
            if (connections >= maxConnections) {
                return false;
            }
            connection = new Connection();
            connections++;
            all.add(connection);
        }
        inFlight++;
        connection.send(toHttp(request), intendedNanos, listener);
        return true;
    }

    private FullHttpRequest toHttp(LoadRequest request) {
        if (!request.isPost()) {
            return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, request.uri(), Unpooled.EMPTY_BUFFER,
                    requestHeaders, EmptyHttpHeaders.INSTANCE);
        }
        ByteBuf body = request.body().duplicate(); // unreleasable: the encoder's release leaves the bytes for the next send
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, request.uri(), body,
                postHeaders(body.readableBytes()), EmptyHttpHeaders.INSTANCE);
    }

    private HttpHeaders postHeaders(int length) {
        HttpHeaders headers = postHeaders.get(length);
        if (headers == null) {
            headers = new DefaultHttpHeaders().add(requestHeaders)
                    .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .set(HttpHeaderNames.CONTENT_LENGTH, AsciiString.of(Integer.toString(length)));
            postHeaders.put(length, headers);
        }
        return headers;
    }

    /** Closes every connection; a request still out fails with {@code reason}. */
    public void closeAll(String reason) {
        for (Connection connection : new java.util.ArrayList<>(all)) {
            connection.abandon(reason);
        }
    }

    /** One keep-alive connection carrying one request at a time. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> {
        private Channel channel;
        private boolean connecting;
        private FullHttpRequest waiting;
        private long intendedNanos;
        private ResponseListener listener;
        private boolean closed;

        void send(FullHttpRequest request, long intended, ResponseListener responseListener) {
            this.intendedNanos = intended;
            this.listener = responseListener;
            // Stamped when the generator gets to it: a new connection's connect time is the server's
            // (its accept backlog), not the generator's lateness, and stays in the request's latency.
            listener.sent(intendedNanos, ticker.nanoTime());
            if (channel != null) {
                write(request);
                return;
            }
            waiting = request;
            if (!connecting) {
                connecting = true;
                ChannelFuture connect = bootstrap.connect(host, port);
                connect.addListener((ChannelFuture f) -> onConnected(f));
            }
        }

        private void onConnected(ChannelFuture future) {
            connecting = false;
            if (!future.isSuccess()) {
                waiting.release();
                waiting = null;
                discard("cannot connect to " + hostHeader + ": " + future.cause().getMessage());
                return;
            }
            channel = future.channel();
            channel.pipeline().addLast(this);
            FullHttpRequest request = waiting;
            waiting = null;
            write(request);
        }

        private void write(FullHttpRequest request) {
            channel.writeAndFlush(request, channel.voidPromise());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            ResponseListener done = listener;
            listener = null;
            inFlight--;
            boolean tainted = ByteBufUtil.indexOf(TAINTED, response.content()) >= 0;
            double docsFraction = tainted ? CoverageField.docsFraction(response.content()) : Double.NaN;
            String errorCode = response.status().code() == 200 ? null : ErrorCode.of(response.content());
            boolean keepAlive = HttpUtil.isKeepAlive(response);
            if (keepAlive) {
                idle.addFirst(this); // most recently used first: fewer connections stay warm
            } else {
                closed = true;
                connections--;
                all.remove(this);
                ctx.close();
            }
            int status = response.status().code();
            if (status == 503 || status == 429) {
                long retryAfter = retryAfterNanos(response.headers().get(HttpHeaderNames.RETRY_AFTER));
                if (retryAfter > 0) {
                    done.retryAfter(retryAfter);
                }
            }
            done.completed(intendedNanos, status, tainted, docsFraction, errorCode);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            discard("connection closed by the server");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            discard("connection error: " + cause.getMessage());
            ctx.close();
        }

        /** The connection is gone; fail its request if one was out. */
        private void discard(String reason) {
            if (closed) {
                return;
            }
            closed = true;
            connections--;
            all.remove(this);
            idle.remove(this);
            if (listener != null) {
                ResponseListener failed = listener;
                listener = null;
                inFlight--;
                failed.failed(intendedNanos, reason);
            }
        }

        void abandon(String reason) {
            discard(reason);
            if (channel != null) {
                channel.close();
            }
        }
    }

    /** Retry-After in delay-seconds (the root's form), in nanoseconds; 0 when absent or another form. */
    static long retryAfterNanos(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return TimeUnit.SECONDS.toNanos(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException e) {
            return 0; // an HTTP date: the root never sends one
        }
    }
}
