package io.hedgerow.root.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;

/**
 * One request as a route sees it, with what it needs to answer: the channel, whether the
 * connection stays open after the answer, and when the request's first byte arrived.
 *
 * @param receivedNanos when the request's first byte was read, on the root's ticker: a search's
 *                      deadline and latency count from here
 */
record Exchange(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri, boolean keepAlive,
        long receivedNanos) {

    String path() {
        return uri.path();
    }

    HttpMethod method() {
        return request.method();
    }
}
