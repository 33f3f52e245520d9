package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.netty.channel.Channel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes frames produced on worker threads to one channel with one event-loop task and one flush
 * per batch, instead of a task and a syscall per frame. It is the answer side of one root's
 * connection, made when the root's Hello is accepted, and knows that root's id: the tasks whose
 * answers go here are known by it and their request ids ({@link TaskKey}).
 *
 * <p><b>Assumptions and guarantees.</b> {@link #send} may be called from any thread. Frames are
 * written in the order {@code send} calls completed. At most one drain task is scheduled at a time;
 * a frame sent while a drain runs is written by that drain or by the next one, never lost. Frames
 * sent after the channel closed are dropped (the peer is gone).
 */
final class OutboundBatcher {
    private final Channel channel;
    private final long rootId;
    private final Queue<Frame> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drain;
    /** Where the answers' times are recorded; null: nowhere. */
    private final LeafTimings timings;

    OutboundBatcher(Channel channel, long rootId) {
        this(channel, rootId, null);
    }

    /**
     * @param timings records the queue and service times of the answers written, on the event loop:
     *                not on the worker, whose time after its answer is charged to no task and delays its next
     */
    OutboundBatcher(Channel channel, long rootId, LeafTimings timings) {
        this.channel = channel;
        this.rootId = rootId;
        this.timings = timings;
    }

    /** The id of the root whose connection this is. */
    long rootId() {
        return rootId;
    }

    void send(Frame frame) {
        pending.add(frame);
        if (drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    private void drain() {
        // Clear the flag first: a send that races with this drain schedules another one.
        drainScheduled.set(false);
        boolean wrote = false;
        Frame frame;
        while ((frame = pending.poll()) != null) {
            if (timings != null) {
                timings.answered(frame);
            }
            if (channel.isActive()) {
                channel.write(frame, channel.voidPromise());
                wrote = true;
            }
        }
        if (wrote) {
            channel.flush();
        }
    }
}
