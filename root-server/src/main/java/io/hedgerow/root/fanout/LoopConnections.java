package io.hedgerow.root.fanout;

import io.netty.channel.EventLoop;

/**
 * One event loop's connections, one per leaf, and its sequence of request ids. Request ids are
 * unique per root process: a random per-process prefix, the loop's number, then a counter.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to {@link #loop()}, like its connections.
 */
final class LoopConnections implements DispatchPolicy.ReplicaView {
    private final EventLoop loop;
    private final LeafConnection[] byLeaf;
    private final long idPrefix;
    private long nextSequence;

    LoopConnections(EventLoop loop, LeafConnection[] byLeaf, int processSalt, int loopIndex) {
        this.loop = loop;
        this.byLeaf = byLeaf;
        this.idPrefix = ((long) (processSalt & 0xFF) << 56) | ((long) (loopIndex & 0xFF) << 48);
    }

    /** The one of {@code loops} whose event loop is the calling thread, or null when none is. */
    static LoopConnections current(LoopConnections[] loops) {
        for (LoopConnections loop : loops) {
            if (loop.loop.inEventLoop()) {
                return loop;
            }
        }
        return null;
    }

    EventLoop loop() {
        return loop;
    }

    LeafConnection leaf(int leaf) {
        return byLeaf[leaf];
    }

    LeafConnection[] all() {
        return byLeaf;
    }

    long nextRequestId() {
        return idPrefix | (nextSequence++ & 0xFFFF_FFFF_FFFFL);
    }

    @Override
    public boolean isReady(int leaf) {
        return byLeaf[leaf].isReady();
    }

    @Override
    public int outstanding(int leaf) {
        return byLeaf[leaf].outstanding();
    }
}
