package io.hedgerow.root.http;

import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.metrics.RootMetrics.RequestError;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpContentException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/**
 * Routes the HTTP API to its groups of endpoints ({@link Routes}: searches, the root's status, the
 * tail policies' admin, the leaves' admin), checking the admin token first for the groups that
 * need it. Every error is a JSON body {@code {"error", "detail"}} with a 4xx or 5xx status, and
 * never holds a stack trace: an unexpected failure is logged under an id and the client is given
 * the id. Nothing a client sends can make the handler throw. Searches complete asynchronously,
 * usually on this same event loop.
 */
@ChannelHandler.Sharable
final class HttpApiHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final System.Logger LOG = System.getLogger(HttpApiHandler.class.getName());
    static final String JSON_TYPE = "application/json; charset=utf-8";

    private final List<Routes> routes;
    private final AdminToken adminToken;
    private final AdminToken writeToken;
    private final RootMetrics metrics;
    private final BooleanSupplier stopping;
    private final String paths;
    private final RequestIds requestIds;
    private final AccessLog accessLog;

    /**
     * @param routes   the groups of endpoints, asked in order
     * @param stopping true once the root is stopping: every answer then closes its connection
     * @param paths    the paths to name when a request's path is none of them
     */
    HttpApiHandler(List<Routes> routes, AdminToken adminToken, AdminToken writeToken, RootMetrics metrics,
            BooleanSupplier stopping, String paths, RequestIds requestIds, AccessLog accessLog) {
        this.requestIds = requestIds;
        this.accessLog = accessLog;
        this.writeToken = writeToken;
        this.routes = List.copyOf(routes);
        this.adminToken = adminToken;
        this.metrics = metrics;
        this.stopping = stopping;
        this.paths = paths;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        RequestTimer timer = RequestTimer.of(ctx.channel());
        long receivedNanos = timer == null ? System.nanoTime() : timer.next();
        QueryStringDecoder uri = new QueryStringDecoder(RequestTarget.utf8(request.uri()));
        String requestId = requestIds.of(request.headers());
        Exchange exchange = new Exchange(ctx, request, uri, HttpUtil.isKeepAlive(request), receivedNanos, stopping,
                requestId, accessLog);
        if (request.decoderResult().isFailure()) {
            metrics.requestRejected(RequestError.BAD_REQUEST);
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpContentException) {
                // The aggregator skipped the body, so the connection can go on.
                sendError(exchange, new ApiException(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "payload_too_large",
                        cause.getMessage()));
            } else {
                sendError(new Exchange(ctx, request, uri, false, receivedNanos, stopping, requestId, accessLog),
                        ApiException.badRequest("malformed HTTP request: " + cause.getMessage()));
            }
            return;
        }
        Routes route = route(uri.path());
        try {
            if (route == null) {
                throw new ApiException(HttpResponseStatus.NOT_FOUND, "not_found", "no such path: " + uri.path()
                        + " (expected: " + paths + ")");
            }
            if (route.needsAdminToken()) {
                adminToken.check(request);
            }
            if (writeToken.exists() && route.isWrite(request)) {
                writeToken.check(request);
            }
            route.handle(exchange);
        } catch (ApiException e) {
            metrics.requestRejected(errorKind(e));
            sendError(exchange, e);
        } catch (RuntimeException e) {
            metrics.requestRejected(RequestError.INTERNAL);
            sendError(exchange, internalError(request.method() + " " + uri.path(), e));
        }
    }

    private Routes route(String path) {
        for (Routes candidate : routes) {
            if (candidate.handles(path)) {
                return candidate;
            }
        }
        return null;
    }

    private static RequestError errorKind(ApiException e) {
        return switch (e.status().code()) {
            case 404 -> RequestError.NOT_FOUND;
            case 401 -> RequestError.UNAUTHORIZED;
            case 500 -> RequestError.INTERNAL;
            default -> RequestError.BAD_REQUEST;
        };
    }

    /**
     * A 500 that says nothing of the root's insides: the failure is logged with its stack trace
     * under a random id, and the client gets the id to quote.
     */
    static ApiException internalError(String what, Throwable cause) {
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        LOG.log(System.Logger.Level.ERROR, "internal error " + id + " in " + what, cause);
        return new ApiException(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal",
                "the root failed unexpectedly (logged as internal error " + id + ")");
    }

    /** A body with a content type other than JSON is refused; no content type is taken as JSON. */
    static void requireJson(FullHttpRequest request) throws ApiException {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (contentType != null && !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
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
                request.method() + " " + new QueryStringDecoder(request.uri()).path() + " (allowed: " + allowed + ")")
                .withHeader(HttpHeaderNames.ALLOW, allowed);
    }

    static void sendError(Exchange exchange, ApiException error) {
        write(exchange, errorResponse(exchange.ctx(), error));
    }

    static FullHttpResponse errorResponse(ChannelHandlerContext ctx, ApiException error) {
        FullHttpResponse response = response(error.status(), JSON_TYPE,
                JsonResponses.error(ctx.alloc(), error.code(), error.detail()));
        response.headers().add(error.headers());
        return response;
    }

    static void send(Exchange exchange, HttpResponseStatus status, String type, ByteBuf body) {
        write(exchange, response(status, type, body));
    }

    static FullHttpResponse response(HttpResponseStatus status, String type, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, type)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }

    /**
     * Writes the answer to the exchange's request, with its {@code X-Request-Id}, and logs it in the
     * access log once written; closes the connection after it unless kept alive.
     */
    static ChannelFuture write(Exchange exchange, FullHttpResponse response) {
        ChannelHandlerContext ctx = exchange.ctx();
        response.headers().set(RequestIds.HEADER, exchange.requestId());
        int status = response.status().code();
        long bytes = response.content().readableBytes(); // read now: the body is released once written
        ChannelFuture written;
        if (exchange.keepAlive()) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            written = ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            written = ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
        exchange.accessLog().answered(exchange, status, bytes, written);
        return written;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "closing HTTP connection " + ctx.channel().remoteAddress() + ": " + cause);
        ctx.close();
    }
}
