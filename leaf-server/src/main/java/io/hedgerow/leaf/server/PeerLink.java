package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.Frame;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One leaf-to-leaf connection that carries twin cancels to one peer: opened on the first cancel,
 * reopened on the first cancel after it closed, and given up on for a backoff after a failed
 * attempt. Its first frame is a Hello in the {@code TWIN_CANCELS} role; the cancels follow without
 * waiting for the answer (a peer of another protocol version ignores them, or closes the
 * connection if it predates versions: either way a twin runs that could have been dropped). Cancels sent while it connects wait (at most {@link PeerCancels#MAX_PENDING_PER_PEER})
 * and go out as soon as it is up; if it cannot connect, or is backing off, they are dropped and
 * counted. Writes are batched: one event-loop task and one flush for all cancels sent meanwhile.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #send} may be called from any thread and never
 * blocks. Everything else runs on {@code loop}, to which the connection's fields are confined.
 * At most one drain task is scheduled at a time; an id queued while a drain runs is written or
 * dropped by that drain or by the next one, never lost silently. The peer's address is resolved
 * when connecting; leaves are named by IP address or by a name the system resolves locally.
 */
final class PeerLink {
    private static final System.Logger LOG = System.getLogger(PeerLink.class.getName());

    private final String address;
    private final EventLoop loop;
    private final Class<? extends Channel> channelClass;
    private final int maxFrameBytes;
    private final Ticker ticker;
    private final LeafCounters counters;
    private final Frame hello;
    private final Queue<Cancel> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drain;
    // Confined to the loop.
    private Channel channel;
    private boolean connecting;
    private int failedAttempts;
    private long retryAtNanos;
    private volatile boolean connected;
    private final LinkTls tls;

    PeerLink(String address, EventLoop loop, Class<? extends Channel> channelClass, int maxFrameBytes, Ticker ticker,
            LeafCounters counters, Frame hello, LinkTls tls) {
        this.tls = tls;
        this.hello = hello;
        this.address = address;
        this.loop = loop;
        this.channelClass = channelClass;
        this.maxFrameBytes = maxFrameBytes;
        this.ticker = ticker;
        this.counters = counters;
    }

    void send(Cancel cancel) {
        if (pendingCount.incrementAndGet() > PeerCancels.MAX_PENDING_PER_PEER) {
            pendingCount.decrementAndGet();
            counters.twinCancelSendFailures.increment();
            return;
        }
        pending.add(cancel);
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drain);
            } catch (RejectedExecutionException e) {
                drainScheduled.set(false); // shutting down: nothing will be sent any more
                dropPending();
            }
        }
    }

    boolean isConnected() {
        return connected;
    }

    private void drain() {
        // Clear the flag first: a send that races with this drain schedules another one.
        drainScheduled.set(false);
        if (channel != null) {
            writePending();
        } else if (!connecting) {
            if (failedAttempts > 0 && ticker.nanoTime() - retryAtNanos < 0) {
                dropPending();
            } else {
                connect();
            }
        }
        // While connecting, the cancels wait for the outcome.
    }

    private void connect() {
        HostPort peer = HostPort.parse(address);
        if (peer == null) {
            failed("twin leaf address '" + address + "' (expected: host:port)");
            return;
        }
        connecting = true;
        new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) PeerCancels.CONNECT_TIMEOUT.toMillis())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        WireCodec.install(ch.pipeline(), maxFrameBytes);
                        tls.dialled(ch, peer.host(), peer.port());
                        ch.pipeline().addLast("peer", new Discard());
                    }
                })
                .connect(peer.host(), peer.port())
                .addListener((ChannelFuture future) -> connected(future));
    }

    private void connected(ChannelFuture future) {
        connecting = false;
        if (!future.isSuccess()) {
            failed("cannot connect to twin leaf " + address + ": " + future.cause());
            return;
        }
        Channel ch = future.channel();
        channel = ch;
        connected = true;
        failedAttempts = 0;
        ch.writeAndFlush(hello, ch.voidPromise());
        ch.closeFuture().addListener(closed -> {
            if (channel == ch) {
                channel = null;
                connected = false;
            }
        });
        writePending();
    }

    private void failed(String why) {
        if (failedAttempts++ == 0) {
            // Once per streak of failures: a dead peer must not flood the log.
            LOG.log(System.Logger.Level.WARNING, why + "; dropping cancels to it until it is back");
        }
        retryAtNanos = ticker.nanoTime()
                + PeerCancels.RECONNECT.delayNanos(failedAttempts - 1, ThreadLocalRandom.current().nextDouble());
        dropPending();
    }

    private void writePending() {
        boolean wrote = false;
        Cancel cancel;
        while ((cancel = pending.poll()) != null) {
            pendingCount.decrementAndGet();
            // Counted before it leaves, so whoever sees the peer act on it also sees it counted.
            counters.twinCancelsSent.increment();
            channel.write(Frame.newBuilder().setCancel(cancel).build(), channel.voidPromise());
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }

    private void dropPending() {
        while (pending.poll() != null) {
            pendingCount.decrementAndGet();
            counters.twinCancelSendFailures.increment();
        }
    }

    /** A peer sends only its HelloAck on this connection, which changes nothing; closing is the answer to errors. */
    private static final class Discard extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // Frames are plain protobuf objects: nothing to release.
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
