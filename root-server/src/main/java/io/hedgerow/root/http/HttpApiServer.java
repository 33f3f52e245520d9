package io.hedgerow.root.http;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.net.TlsContexts;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.net.Transport;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.admission.AdmissionControl;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.fault.LeafFaults;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.search.RequestTag;
import io.hedgerow.root.tail.TailGuard;
import io.hedgerow.root.write.DocumentWriter;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
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
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The HTTP/1.1 server of the API, on the same event loops as the leaf connections, so a query
 * is parsed, fanned out, merged and answered without leaving its thread. Its intake is bounded
 * ({@link ConnectionLimits}): a connection cap, idle, whole-request and write timeouts, a cap on
 * pipelined requests, and reading paused while a connection's client does not read its answers.
 */
public final class HttpApiServer implements AutoCloseable {
    /** Request bodies larger than this are refused with 413 (every path but {@code /documents} and {@code /_bulk}). */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /**
     * Bodies to {@code /documents} and {@code /_bulk} (a bulk of JSON lines) up to this are taken
     * (aggregated in memory, then written in batches); larger ones are refused with 413. A single
     * document is capped lower, by the leaves' largest op ({@link DocumentRoutes#MAX_DOCUMENT_BYTES}).
     */
    public static final int MAX_DOCUMENTS_BODY_BYTES = 100 * 1024 * 1024;

    /**
     * Runs a search whose request began to arrive at {@code startNanos} (on the root's ticker), for
     * the HTTP request {@code tag} names.
     */
    @FunctionalInterface
    public interface SearchService {
        CompletableFuture<SearchResult> search(SearchRequest request, long startNanos, RequestTag tag);
    }

    private final Channel serverChannel;
    private final ConnectionLimits limits;
    private final ConnectionDrain drain;
    private final RootMetrics metrics;
    private final HttpSettings settings;

    private HttpApiServer(Channel serverChannel, ConnectionLimits limits, ConnectionDrain drain, RootMetrics metrics,
            HttpSettings settings) {
        this.serverChannel = serverChannel;
        this.limits = limits;
        this.drain = drain;
        this.metrics = metrics;
        this.settings = settings;
    }

    /**
     * Binds {@code settings.host():settings.port()} (port 0 picks a free one) and serves the API:
     * searches through {@code search} behind {@code admission}, the status routes, and the admin
     * routes behind the admin token.
     *
     * @param documents live writes under {@code /documents}; null for a root without them
     * @param admin    leaf processes' operations for {@code /admin/leaves}; null when this root has none
     * @param stopping true once the root is stopping: searches are refused and connections closed after their answer
     * @throws BindException with the port and a hint when it is taken
     */
    public static HttpApiServer start(EventLoopGroup group, Transport transport, HttpSettings settings,
            SearchService search, ClusterState cluster, RootMetrics metrics, AdmissionControl admission,
            Readiness readiness, LeafAdmin admin, LeafFaults faults, TailGuard tail, DocumentWriter documents)
            throws IOException {
        Ticker ticker = Ticker.system();
        BooleanSupplier stopping = readiness::stopping;
        List<Routes> routes = new ArrayList<>();
        routes.add(new SearchRoutes(search, new SearchRequestParser(cluster.config().maxTimeout().toMillis(),
                () -> cluster.index().manifest()), admission,
                metrics, ticker, stopping, cluster.config().defaultTimeout().toNanos(),
                new SlowQueryLog(settings.slowQuery(), ticker)));
        routes.add(new StatusRoutes(cluster, metrics, admission, readiness, documents));
        routes.add(new TailRoutes(tail));
        routes.add(new OpenApiRoutes());
        routes.add(new ConsoleRoutes());
        String paths = "/search, /health, /ready, /cluster, /metrics, /metrics/latency, /metrics/leaves, /metrics/summary,"
                + " /admin/blocklist, /admin/cache, /openapi.json, /, /console/{asset}";
        if (documents != null) {
            routes.add(new DocumentRoutes(documents));
            routes.add(new BulkRoutes(documents));
            paths += ", /documents, /_bulk";
        }
        if (admin != null) {
            routes.add(new AdminRoutes(admin, faults));
            paths += " or /admin/leaves/{n}/...";
        }
        HttpApiHandler api = new HttpApiHandler(routes, AdminToken.of(settings.adminToken()),
                AdminToken.of(settings.writeToken(), "write"), metrics, stopping, paths,
                new RequestIds(new SecureRandom()), new AccessLog(ticker));
        SslContext ssl = settings.tls() == null ? null : TlsContexts.server(settings.tls());
        ConnectionLimits limits = new ConnectionLimits(settings);
        admission.queueCapacityFrom(limits::open); // about one waiting search per open connection
        ConnectionDrain drain = new ConnectionDrain(limits.channels(), ticker, settings.quietPeriod());
        String host = settings.host();
        int port = settings.port();
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelClass())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (!limits.admit(ch)) {
                                return;
                            }
                            var timer = RequestTimer.install(ch, ticker);
                            ChannelPipeline pipeline = ch.pipeline();
                            pipeline.addLast("drain", drain.readWatch());
                            if (ssl != null) {
                                pipeline.addLast("tls", ssl.newHandler(ch.alloc()));
                            }
                            ChannelHandler wholeRequest = limits.install(pipeline);
                            pipeline.addLast("reads", timer[0])
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("requests", timer[1])
                                    .addLast("bodyLimit", new BodyLimit())
                                    .addLast("aggregator", new JsonErrorAggregator(MAX_BODY_BYTES))
                                    .addLast("wholeRequest", wholeRequest)
                                    .addLast("inOrder", new InOrderResponses(settings.maxPipelined()))
                                    .addLast("api", api);
                        }
                    })
                    .bind(host, port)
                    .sync()
                    .channel();
            return new HttpApiServer(channel, limits, drain, metrics, settings);
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

    /** An address this server can be reached at from this machine (loopback when it listens on every address). */
    public String host() {
        InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();
        return address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getAddress().getHostAddress();
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** The certificate and key this server serves HTTPS with; null for plain HTTP. */
    public TlsFiles tls() {
        return settings.tls();
    }

    /** Connections open now. */
    public int openConnections() {
        return limits.open();
    }

    /** Connections closed at once because {@link HttpSettings#maxConnections()} were open. */
    public long refusedConnections() {
        return limits.refused();
    }

    /** Stops accepting connections; those open stay open (their searches end, then they close). */
    public void stopAccepting() {
        serverChannel.close().syncUninterruptibly();
    }

    /**
     * The graceful end of a stop that began at {@code startNanos} (on the system ticker) with
     * {@link #stopAccepting()}: waits for the admitted searches to be answered and for the clients to
     * stop sending, closing each connection between requests ({@link ConnectionDrain}), for the drain
     * timeout at most; then every connection is closed. The caller has made the API refuse new
     * searches and close connections after their answers (its {@code stopping} flag).
     *
     * @param searchesInFlight admitted searches not answered yet
     */
    public DrainOutcome drain(long startNanos, IntSupplier searchesInFlight) {
        DrainOutcome outcome = drain.drain(startNanos, settings.drainTimeout(), searchesInFlight,
                () -> metrics.requestErrors(RequestError.SHUTTING_DOWN));
        limits.closeAll();
        return outcome;
    }

    /** Stops accepting, and closes every open connection. */
    @Override
    public void close() {
        stopAccepting();
        limits.closeAll();
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
        private final int maxBytes;

        JsonErrorAggregator(int maxBytes) {
            super(maxBytes);
            this.maxBytes = maxBytes;
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
                    "request body is larger than " + maxBytes + " bytes")));
            ctx.fireChannelRead(refused);
        }
    }

    /**
     * Gives each request the body limit of its path: {@link #MAX_DOCUMENTS_BODY_BYTES} for
     * {@code /documents}, {@link #MAX_BODY_BYTES} for the rest. It swaps the aggregator at the start
     * of a request, when the one before it has finished its message (requests on a connection come
     * one after the other), so a search body stays small while a bulk of documents may be large.
     */
    private static final class BodyLimit extends io.netty.channel.ChannelInboundHandlerAdapter {
        private int current = MAX_BODY_BYTES;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                String path = new io.netty.handler.codec.http.QueryStringDecoder(request.uri()).path();
                int limit = path.equals(DocumentRoutes.PATH) || path.startsWith(DocumentRoutes.PATH + "/")
                        || path.equals(BulkRoutes.PATH) ? MAX_DOCUMENTS_BODY_BYTES : MAX_BODY_BYTES;
                if (limit != current) {
                    ctx.pipeline().replace("aggregator", "aggregator", new JsonErrorAggregator(limit));
                    current = limit;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }
}
