package io.hedgerow.root.transport;

import io.hedgerow.root.search.DispatchPolicy;
import io.netty.channel.EventLoop;

/**
 * One event loop's connections, one per leaf, and its sequence of request ids. Request ids are
 * unique per root process: the loop's number in the top 8 bits, then a counter. They need not be
 * unique across roots: leaves know a request by its root's id (sent in the Hello) and its request
 * id, so two roots, or a root and its restarted self, may use the same ids.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to {@link #loop()}, like its connections.
 */
public final class LoopConnections implements DispatchPolicy.ReplicaView {
    private final EventLoop loop;
    private final LeafConnection[] byLeaf;
    private final long idPrefix;
    private long nextSequence;

    public LoopConnections(EventLoop loop, LeafConnection[] byLeaf, int loopIndex) {
        if (loopIndex < 0 || loopIndex > 0xFF) {
            throw new IllegalArgumentException("loopIndex: " + loopIndex + " (expected: 0..255)");
        }
        this.loop = loop;
        this.byLeaf = byLeaf;
        this.idPrefix = (long) loopIndex << 56;
    }

    /** The one of {@code loops} whose event loop is the calling thread, or null when none is. */
    public static LoopConnections current(LoopConnections[] loops) {
        for (LoopConnections loop : loops) {
            if (loop.loop.inEventLoop()) {
                return loop;
            }
        }
        return null;
    }

    public EventLoop loop() {
        return loop;
    }

    public LeafConnection leaf(int leaf) {
        return byLeaf[leaf];
    }

    public LeafConnection[] all() {
        return byLeaf;
    }

    public long nextRequestId() {
        return idPrefix | (nextSequence++ & 0x00FF_FFFF_FFFF_FFFFL);
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
