package io.hedgerow.root.http;

import io.hedgerow.root.api.HedgerowClient;
import io.hedgerow.root.api.LeafFaults;
import io.hedgerow.root.api.SearchException;
import io.hedgerow.root.api.SearchRequest;
import io.hedgerow.root.api.SearchResult;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.metrics.RequestLatency;
import io.hedgerow.root.metrics.RequestLatency.Outcome;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.hedgerow.root.tail.TailGuard;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpContentException;
import java.util.concurrent.CompletionException;

/**
 * Routes the HTTP API: {@code /search} (GET and POST), {@code /health}, {@code /cluster},
 * {@code /metrics}, and {@code /admin} on roots that manage their leaves ({@link AdminRoutes}).
 * Every error is a JSON body {@code {"error", "detail"}} with a 4xx or 5xx status; nothing a
 * client sends can make the handler throw. Searches complete asynchronously, usually on this same
 * event loop.
 */
@ChannelHandler.Sharable
final class HttpApiHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final System.Logger LOG = System.getLogger(HttpApiHandler.class.getName());
    static final String JSON_TYPE = "application/json; charset=utf-8";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HedgerowClient client;
    private final ClusterState cluster;
    private final RootMetrics metrics;
    private final SearchRequestParser parser;
    private final AdminRoutes admin;
    private final TailRoutes tailRoutes;
    /** Live writes under {@code /documents}; null for a root without them. */
    private final DocumentRoutes documents;

    /**
     * @param admin  leaf process operations of a root that manages its leaves, or null: then
     *               {@code /admin} does not exist
     * @param faults fault injection in the leaves, offered under {@code /admin} when it exists
     * @param tail   the blocklist and result cache, listed and cleared under {@code /admin}
     */
    HttpApiHandler(HedgerowClient client, ClusterState cluster, RootMetrics metrics, LeafAdmin admin, LeafFaults faults,
            TailGuard tail) {
        this(client, cluster, metrics, admin, faults, tail, null);
    }

    /** As above, with {@code /documents} served by {@code documents} (null: no live writes). */
    HttpApiHandler(HedgerowClient client, ClusterState cluster, RootMetrics metrics, LeafAdmin admin, LeafFaults faults,
            TailGuard tail, DocumentRoutes documents) {
        this.documents = documents;
        this.client = client;
        this.cluster = cluster;
        this.metrics = metrics;
        this.admin = admin == null ? null : new AdminRoutes(admin, faults);
        this.tailRoutes = new TailRoutes(tail);
        this.parser = new SearchRequestParser(cluster.config().maxTimeout().toMillis());
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        RequestTimer timer = RequestTimer.of(ctx.channel());
        long receivedNanos = timer == null ? System.nanoTime() : timer.next();
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (request.decoderResult().isFailure()) {
            metrics.requestRejected(RequestError.BAD_REQUEST);
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpContentException) {
                // The aggregator skipped the body, so the connection can go on.
                sendError(ctx, keepAlive, new ApiException(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                        "payload_too_large", cause.getMessage()));
            } else {
                sendError(ctx, false, new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_request",
                        "malformed HTTP request: " + cause.getMessage()));
            }
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        try {
            switch (uri.path()) {
                case "/search" -> {
                    metrics.searchRequested();
                    search(ctx, request, uri, keepAlive, new SearchTiming(timer, receivedNanos));
                }
                case "/health" -> {
                    requireGet(request, "GET");
                    HttpResponseStatus status = ClusterReport.upLeaves(cluster) == 0
                            ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK;
                    send(ctx, keepAlive, status, JSON_TYPE,
                            JsonResponses.write(ctx.alloc(), json -> ClusterReport.writeHealth(json, cluster)));
                }
                case "/cluster" -> {
                    requireGet(request, "GET");
                    send(ctx, keepAlive, HttpResponseStatus.OK, JSON_TYPE,
                            JsonResponses.write(ctx.alloc(), json -> ClusterReport.writeCluster(json, cluster)));
                }
                case "/metrics" -> {
                    requireGet(request, "GET");
                    send(ctx, keepAlive, HttpResponseStatus.OK, PROMETHEUS_TYPE,
                            ByteBufUtil.writeUtf8(ctx.alloc(), metrics.scrape()));
                }
                case "/metrics/latency" -> {
                    requireGet(request, "GET");
                    send(ctx, keepAlive, HttpResponseStatus.OK, JSON_TYPE, JsonResponses.write(ctx.alloc(),
                            json -> JsonResponses.writeRequestLatency(json, metrics.requestLatency().snapshot())));
                }
                default -> {
                    if (documents != null && DocumentRoutes.handles(uri.path())) {
                        documents.handle(ctx, request, uri, keepAlive);
                    } else if (TailRoutes.handles(uri.path())) {
                        tailRoutes.handle(ctx, request, uri.path(), keepAlive);
                    } else if (admin != null && uri.path().startsWith(AdminRoutes.PREFIX)) {
                        admin.handle(ctx, request, uri.path(), keepAlive);
                    } else {
                        throw new ApiException(HttpResponseStatus.NOT_FOUND, "not_found",
                                "no such path: " + uri.path() + " (expected: /search, /health, /cluster, /metrics, "
                                        + "/admin/blocklist or /admin/cache)");
                    }
                }
            }
        } catch (ApiException e) {
            metrics.requestRejected(e.status() == HttpResponseStatus.NOT_FOUND ? RequestError.NOT_FOUND : RequestError.BAD_REQUEST);
            if (uri.path().equals("/search")) {
                sendSearchError(ctx, keepAlive, e, new SearchTiming(timer, receivedNanos));
            } else {
                sendError(ctx, keepAlive, e);
            }
        }
    }

    private void search(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri, boolean keepAlive,
            SearchTiming timing) throws ApiException {
        SearchRequest search;
        if (request.method() == HttpMethod.GET) {
            search = parser.fromParameters(uri.parameters());
        } else if (request.method() == HttpMethod.POST) {
            requireJson(request);
            if (!uri.parameters().isEmpty()) {
                throw ApiException.badRequest("POST /search takes its settings in the JSON body, not in the URL");
            }
            search = parser.fromJson(request.content());
        } else {
            throw methodNotAllowed(request, "GET, POST");
        }
        client.search(search).whenComplete((result, failure) -> {
            if (failure == null) {
                sendResult(ctx, keepAlive, result, timing);
            } else {
                sendSearchError(ctx, keepAlive, toApiException(failure), timing);
            }
        });
    }

    private static ApiException toApiException(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof SearchException e) {
            return switch (e.kind()) {
                case BAD_QUERY -> new ApiException(HttpResponseStatus.BAD_REQUEST, "bad_query", e.getMessage());
                case TIMED_OUT -> new ApiException(HttpResponseStatus.GATEWAY_TIMEOUT, "timed_out", e.getMessage());
                case UNAVAILABLE, SHUTTING_DOWN ->
                        new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable", e.getMessage());
                case DANGEROUS -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "dangerous_query", e.getMessage());
                case BLOCKLISTED -> new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "blocklisted", e.getMessage());
            };
        }
        LOG.log(System.Logger.Level.ERROR, "search failed unexpectedly", cause);
        return new ApiException(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal", String.valueOf(cause));
    }

    private static void requireGet(FullHttpRequest request, String allowed) throws ApiException {
        if (request.method() != HttpMethod.GET) {
            throw methodNotAllowed(request, allowed);
        }
    }

    /** A body with a content type other than JSON is refused; no content type is taken as JSON. */
    static void requireJson(FullHttpRequest request) throws ApiException {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (contentType != null && !contentType.toLowerCase().startsWith("application/json")) {
            throw new ApiException(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type",
                    "content type " + contentType + " (expected: application/json)");
        }
    }

    /** The failure of an asynchronous step, without {@link CompletionException}'s wrapper. */
    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    static ApiException methodNotAllowed(FullHttpRequest request, String allowed) {
        return new ApiException(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                request.method() + " " + new QueryStringDecoder(request.uri()).path() + " (allowed: " + allowed + ")");
    }

    private void sendResult(ChannelHandlerContext ctx, boolean keepAlive, SearchResult result, SearchTiming timing) {
        ByteBuf body;
        try {
            body = JsonResponses.searchResult(ctx.alloc(), result);
        } catch (RuntimeException e) {
            sendSearchError(ctx, keepAlive, toApiException(e), timing);
            return;
        }
        timing.write(ctx, keepAlive, response(HttpResponseStatus.OK, JSON_TYPE, body),
                result.tainted() ? Outcome.TAINTED : Outcome.COMPLETE);
    }

    private void sendSearchError(ChannelHandlerContext ctx, boolean keepAlive, ApiException error, SearchTiming timing) {
        timing.write(ctx, keepAlive, errorResponse(ctx, error), Outcome.ERROR);
    }

    static void sendError(ChannelHandlerContext ctx, boolean keepAlive, ApiException error) {
        write(ctx, keepAlive, errorResponse(ctx, error));
    }

    private static FullHttpResponse errorResponse(ChannelHandlerContext ctx, ApiException error) {
        FullHttpResponse response = response(error.status(), JSON_TYPE,
                JsonResponses.error(ctx.alloc(), error.code(), error.detail()));
        if (error.status() == HttpResponseStatus.METHOD_NOT_ALLOWED) {
            String detail = error.detail();
            response.headers().set(HttpHeaderNames.ALLOW, detail.substring(detail.indexOf("(allowed: ") + 10, detail.length() - 1));
        }
        return response;
    }

    /**
     * A search's answer is timed from its request's first byte in to the last byte of the answer
     * written to the socket, and recorded by outcome ({@link RequestLatency}).
     */
    private final class SearchTiming {
        private final RequestTimer timer;
        private final long receivedNanos;

        SearchTiming(RequestTimer timer, long receivedNanos) {
            this.timer = timer;
            this.receivedNanos = receivedNanos;
        }

        void write(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response, Outcome outcome) {
            ChannelFuture written = HttpApiHandler.write(ctx, keepAlive, response, ctx.newPromise());
            written.addListener(future -> {
                long now = timer == null ? System.nanoTime() : timer.nanoTime();
                metrics.requestLatency().record(outcome, now - receivedNanos);
            });
        }
    }

    static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String type,
            ByteBuf body) {
        write(ctx, keepAlive, response(status, type, body));
    }

    private static FullHttpResponse response(HttpResponseStatus status, String type, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, type)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }

    private static void write(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
        write(ctx, keepAlive, response, keepAlive ? ctx.voidPromise() : ctx.newPromise());
    }

    private static ChannelFuture write(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response,
            ChannelPromise promise) {
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            return ctx.writeAndFlush(response, promise);
        }
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return ctx.writeAndFlush(response, promise).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "closing HTTP connection " + ctx.channel().remoteAddress() + ": " + cause);
        ctx.close();
    }

}
