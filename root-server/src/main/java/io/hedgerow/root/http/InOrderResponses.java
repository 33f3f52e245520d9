package io.hedgerow.root.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Answers pipelined HTTP/1.1 requests in the order they came, as RFC 9112 (section 9.3.2)
 * requires: it hands the API one request at a time and holds the next ones until the response to
 * the current one is written. Without it a search, which answers when the leaves do, is overtaken
 * by a later {@code /health} or 400 on the same connection, and a pipelining client reads one
 * request's answer as another's.
 *
 * <p>While requests are held, reading from the socket pauses, so a client that pipelines a lot
 * is slowed down rather than filling memory; one that gets more than {@code maxPipelined}
 * requests ahead of its answers (in the reads before the pause) is disconnected.
 *
 * <p><b>Assumptions and guarantees.</b> One instance per connection, called only on its event
 * loop. The handler after it writes exactly one full response (ending in a {@link LastHttpContent})
 * per request it is handed, or closes the connection. Requests still held when the connection
 * closes are released unanswered.
 */
final class InOrderResponses extends ChannelDuplexHandler {
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    private final int maxPipelined;
    private boolean answering;

    /** @param maxPipelined requests held behind the one being answered before the connection is closed */
    InOrderResponses(int maxPipelined) {
        if (maxPipelined < 1) {
            throw new IllegalArgumentException("maxPipelined: " + maxPipelined + " (expected: >= 1)");
        }
        this.maxPipelined = maxPipelined;
    }

    /** Whether no request is being answered or held: the connection is between requests. */
    boolean idle() {
        return !answering && held.isEmpty();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object request) {
        if (answering) {
            if (held.size() >= maxPipelined) {
                // One read can bring many requests before reading pauses: past the cap the client
                // is not waiting for answers, and holding its requests would only grow memory.
                ReferenceCountUtil.release(request);
                releaseHeld();
                ctx.close();
                return;
            }
            held.add(request);
            ctx.channel().config().setAutoRead(false);
        } else {
            answering = true;
            ctx.fireChannelRead(request);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean last = msg instanceof LastHttpContent;
        ctx.write(msg, promise);
        if (last) {
            // A task of its own: handing the next request on from inside this write would nest a
            // stack frame per held request when the API answers them at once.
            ctx.executor().execute(() -> next(ctx));
        }
    }

    private void next(ChannelHandlerContext ctx) {
        Object request = held.poll();
        if (request == null) {
            answering = false;
            ctx.channel().config().setAutoRead(true);
        } else if (ctx.channel().isActive()) {
            ctx.fireChannelRead(request);
        } else {
            ReferenceCountUtil.release(request);
            releaseHeld();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseHeld();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    private void releaseHeld() {
        Object request;
        while ((request = held.poll()) != null) {
            ReferenceCountUtil.release(request);
        }
    }
}
