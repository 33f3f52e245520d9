package io.hedgerow.root.transport;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.adapt.SlowStart;
import io.hedgerow.root.adapt.StallRule;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.search.LeafView;

/**
 * The leaves as one event loop's connections see them, for the searches on that loop.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the loop, like its connections.
 */
public final class LoopLeafView implements LeafView {
    private final LoopConnections connections;
    private final Ticker ticker;
    private final StallRule stallRule;
    private final Probation probation;
    private final StaleReplicas staleReplicas;
    private final SlowStart slowStart;

    /** @param stallRule when a silent leaf counts as stalled; null: never */
    public LoopLeafView(LoopConnections connections, Ticker ticker, StallRule stallRule, Probation probation,
            StaleReplicas staleReplicas, SlowStart slowStart) {
        this.slowStart = slowStart;
        this.connections = connections;
        this.ticker = ticker;
        this.stallRule = stallRule;
        this.probation = probation;
        this.staleReplicas = staleReplicas;
    }

    @Override
    public LeafLoad load(int leaf) {
        return connections.leaf(leaf).load();
    }

    @Override
    public boolean stalled(int leaf) {
        LeafConnection connection = connections.leaf(leaf);
        return stallRule != null && connection.load().stalled(stallRule, connection.outstanding(), ticker.nanoTime());
    }

    @Override
    public boolean onProbation(int leaf) {
        return probation.onProbation(leaf);
    }

    @Override
    public boolean stale(int partition, int leaf) {
        return staleReplicas.stale(partition, leaf);
    }

    @Override
    public double share(int leaf) {
        // Every replica choice asks, and almost never is a leaf in slow start: no clock read then.
        return slowStart.inSlowStart(leaf) ? slowStart.share(leaf, ticker.nanoTime()) : 1;
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
