package io.hedgerow.root.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.function.BooleanSupplier;

/**
 * One request as a route sees it, with what it needs to answer: the channel, whether the
 * connection stays open after the answer, and when the request's first byte arrived.
 *
 * @param clientKeepAlive whether the client asked to keep the connection open
 * @param receivedNanos   when the request's first byte was read, on the root's ticker: a search's
 *                        deadline and latency count from here
 * @param stopping        true once the root is stopping
 * @param requestId       the request's id ({@link RequestIds}): its answer's {@code X-Request-Id}
 * @param accessLog       where its answer is logged once written
 */
record Exchange(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri, boolean clientKeepAlive,
        long receivedNanos, BooleanSupplier stopping, String requestId, AccessLog accessLog) {

    /**
     * Whether the connection stays open after the answer, decided when the answer is written: an
     * answer written while the root drains closes its connection, so the client sends its next
     * request elsewhere instead of into a connection the root is about to close under it.
     */
    boolean keepAlive() {
        return clientKeepAlive && !stopping.getAsBoolean();
    }

    String path() {
        return uri.path();
    }

    HttpMethod method() {
        return request.method();
    }
}
