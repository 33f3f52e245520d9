package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.Priority;

/**
 * The leaves as one event loop's connections see them, for the searches on that loop.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the loop, like its connections.
 */
final class LoopLeafView implements LeafView {
    private final LoopConnections connections;

    LoopLeafView(LoopConnections connections) {
        this.connections = connections;
    }

    @Override
    public boolean isReady(int leaf) {
        return connections.isReady(leaf);
    }

    @Override
    public int outstanding(int leaf) {
        return connections.outstanding(leaf);
    }

    @Override
    public boolean overtaken(int leaf, long sentNanos, Priority priority) {
        return connections.leaf(leaf).progress().overtaken(sentNanos, priority);
    }

    @Override
    public boolean doneSince(int leaf, long nanos) {
        return connections.leaf(leaf).progress().doneSince(nanos);
    }
}
