package io.hedgerow.root.http;

import io.hedgerow.common.time.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;

/**
 * When each request of a connection began to arrive: the time its first byte was read. Two
 * handlers share it, one before the HTTP decoder (it sees every read) and one after it (it sees
 * where requests begin and end); the API takes the times in request order with {@link #next()}.
 *
 * <p>A request's first byte came in the first read after the previous request ended, or, when
 * that read also held the end of the previous request (pipelining), in that same read.
 *
 * <p><b>Assumptions and guarantees.</b> One instance per connection, used only on its event
 * loop. The decoder makes one request head per request, and the API takes one time per request it
 * is handed, in the order they came (see {@link InOrderResponses}).
 */
final class RequestTimer {
    private static final AttributeKey<RequestTimer> KEY = AttributeKey.valueOf(RequestTimer.class, "timer");
    private static final long NONE = Long.MIN_VALUE;

    private final Ticker ticker;
    /** Start times not taken yet, a ring (no boxing): more than one only when requests are pipelined. */
    private long[] starts = new long[4];
    private int head;
    private int size;
    private long lastReadNanos;
    /** The first read since the last request ended, or {@link #NONE}. */
    private long pendingNanos = NONE;

    private RequestTimer(Ticker ticker) {
        this.ticker = ticker;
    }

    /** Installs a timer on the channel: the first handler goes before the decoder, the second after it. */
    static ChannelInboundHandlerAdapter[] install(Channel channel, Ticker ticker) {
        RequestTimer timer = new RequestTimer(ticker);
        channel.attr(KEY).set(timer);
        return new ChannelInboundHandlerAdapter[] {timer.new Reads(), timer.new Requests()};
    }

    /** The timer of a channel, or null when none was installed. */
    static RequestTimer of(Channel channel) {
        return channel.attr(KEY).get();
    }

    /** When the next request (in order) began to arrive; now if the decoder made none (a stray message). */
    long next() {
        if (size == 0) {
            return ticker.nanoTime();
        }
        long start = starts[head];
        head = (head + 1) % starts.length;
        size--;
        return start;
    }

    private void add(long start) {
        if (size == starts.length) {
            long[] grown = new long[starts.length * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = starts[(head + i) % starts.length];
            }
            starts = grown;
            head = 0;
        }
        starts[(head + size) % starts.length] = start;
        size++;
    }

    long nanoTime() {
        return ticker.nanoTime();
    }

    /** Sees every read, before the decoder. */
    private final class Reads extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf) {
                lastReadNanos = ticker.nanoTime();
                if (pendingNanos == NONE) {
                    pendingNanos = lastReadNanos;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** Sees where requests begin and end, after the decoder. */
    private final class Requests extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                add(pendingNanos != NONE ? pendingNanos : lastReadNanos);
                pendingNanos = NONE;
            }
            if (msg instanceof LastHttpContent) {
                pendingNanos = NONE;
            }
            ctx.fireChannelRead(msg);
        }
    }
}
