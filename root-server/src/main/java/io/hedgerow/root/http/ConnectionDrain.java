package io.hedgerow.root.http;

import io.hedgerow.common.time.Ticker;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Ends a stopping root's HTTP connections without failing a request a client has sent. The
 * listener is closed first (new connections are refused); from then on every answer says {@code
 * Connection: close} and new searches are refused with 503 {@code shutting_down} ({@link
 * Exchange#keepAlive()}, {@link SearchRoutes}), so each connection a client still uses closes
 * after its next answer. A connection is closed by the root only between requests (nothing of a
 * request arrived, nothing being answered or held), and only once no request byte has arrived on
 * any connection for the quiet period ({@link QuietPeriod}); at the drain timeout every connection
 * is closed whatever it does.
 *
 * <p><b>Assumptions and guarantees.</b> One instance per server. The read watch runs on every
 * connection's event loop and costs one volatile read per read until the stop begins; {@link
 * #drain} runs once, on the stopping thread, and checks each connection on its own event loop.
 */
final class ConnectionDrain {
    private final ChannelGroup channels;
    private final Ticker ticker;
    private final Duration quiet;
    private final ReadWatch readWatch = new ReadWatch();
    private final AtomicInteger closedIdle = new AtomicInteger();
    private volatile QuietPeriod period;

    ConnectionDrain(ChannelGroup channels, Ticker ticker, Duration quiet) {
        this.channels = channels;
        this.ticker = ticker;
        this.quiet = quiet;
    }

    /** The handler to put first in every connection's pipeline: it sees every read. */
    ChannelHandler readWatch() {
        return readWatch;
    }

    /**
     * Waits until no search is in flight and every connection is closed, closing idle connections
     * once the clients have gone quiet, or until {@code timeout} from {@code startNanos}, when it
     * closes every connection left.
     *
     * @param startNanos       when the stop began (the listener closed), on this drain's ticker
     * @param searchesInFlight the admitted searches not answered yet
     * @param refused          searches refused as shutting down so far (a running count)
     */
    DrainOutcome drain(long startNanos, Duration timeout, IntSupplier searchesInFlight, LongSupplier refused) {
        long refusedBefore = refused.getAsLong();
        QuietPeriod quietPeriod = new QuietPeriod(startNanos, quiet, timeout);
        period = quietPeriod;
        int connectionsAtStop = channels.size();
        int searchesAtStop = searchesInFlight.getAsInt();
        int closedAtDeadline = 0;
        while (searchesInFlight.getAsInt() > 0 || !channels.isEmpty()) {
            long now = ticker.nanoTime();
            if (quietPeriod.pastDeadline(now)) {
                closedAtDeadline = channels.size();
                channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
                break;
            }
            if (quietPeriod.quiet(now)) {
                closeIdle();
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                channels.close();
                break;
            }
        }
        return new DrainOutcome(searchesAtStop, searchesInFlight.getAsInt(), refused.getAsLong() - refusedBefore,
                connectionsAtStop, closedIdle.get(), closedAtDeadline, quiet, ticker.nanoTime() - startNanos);
    }

    /** Closes every connection that is between requests, each on its own event loop. */
    private void closeIdle() {
        for (Channel channel : channels) {
            channel.eventLoop().execute(() -> {
                if (channel.isOpen() && ConnectionLimits.betweenRequests(channel)) {
                    closedIdle.incrementAndGet();
                    channel.close();
                }
            });
        }
    }

    @ChannelHandler.Sharable
    private final class ReadWatch extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            QuietPeriod current = period;
            if (current != null) {
                current.read(ticker.nanoTime());
            }
            ctx.fireChannelRead(msg);
        }
    }
}
