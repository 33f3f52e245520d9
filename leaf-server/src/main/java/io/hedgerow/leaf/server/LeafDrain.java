package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.LeafDraining;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * A leaf's graceful shutdown. Closing a leaf used to close its connections under the work it held,
 * so each of its sub-requests failed at the root as a lost connection. Draining instead:
 *
 * <ol>
 *   <li>the server socket is closed (by the caller), so no new connection arrives;
 *   <li>{@link #begin} marks the leaf draining: every search and fetch that arrives from now on is
 *       answered BUSY at once with an error starting {@value Protocol#DRAINING}, which the root retries
 *       on another replica as it does any BUSY; every root connection is told with a
 *       {@link LeafDraining} frame, after which the root stops choosing this leaf;
 *   <li>{@link #awaitIdle} waits until the leaf holds no task (queued, parked or running), or
 *       until the drain timeout; what it held has been answered;
 *   <li>then the caller closes the connections.
 * </ol>
 *
 * <p><b>Assumptions and guarantees.</b> {@link #isDraining} is read by event loops on every search
 * and fetch; {@link #begin} and {@link #awaitIdle} run once, on the closing thread (never an event
 * loop: they block). A handler that read {@code draining} as false before {@link #begin} has
 * registered its task before the barrier in {@link #begin} returns (the barrier runs a task on every
 * event loop after the flag is set), so {@link #awaitIdle} waits for it too.
 */
final class LeafDrain {
    private final ChannelGroup roots;
    private volatile boolean draining;

    LeafDrain(EventLoopGroup group) {
        this.roots = new DefaultChannelGroup(group.next());
    }

    /** A root's connection, accepted after its Hello: it is told when the leaf starts draining. */
    void rootConnected(Channel channel) {
        roots.add(channel);
    }

    boolean isDraining() {
        return draining;
    }

    /** The error a refused search or fetch carries while draining. */
    static String refusal() {
        return Protocol.DRAINING + ": this leaf is shutting down (retry on another replica)";
    }

    /** Refuses new work from now on and tells every root; returns when every event loop has seen it. */
    void begin(EventLoopGroup group, String reason, Duration timeout) {
        draining = true;
        for (EventExecutor loop : group) {
            loop.submit(() -> { }).syncUninterruptibly();
        }
        roots.writeAndFlush(Frame.newBuilder().setDraining(LeafDraining.newBuilder()
                .setReason(reason)
                .setTimeoutNanos(timeout.toNanos())).build()).awaitUninterruptibly();
    }

    /**
     * Waits until {@code held} reads 0 or {@code timeout} has passed, checking every millisecond,
     * then lets every event loop run once more, so answers handed to them are written.
     *
     * @return the tasks still held when it stopped waiting (0: everything was answered)
     */
    int awaitIdle(EventLoopGroup group, IntSupplier held, Duration timeout, Ticker ticker) {
        long deadline = ticker.nanoTime() + timeout.toNanos();
        int left;
        while ((left = held.getAsInt()) > 0 && ticker.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (EventExecutor loop : group) {
            loop.submit(() -> { }).syncUninterruptibly();
        }
        return left;
    }
}
