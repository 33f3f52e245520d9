package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.LeafLoad;
import io.hedgerow.root.adapt.Probation;
import io.hedgerow.root.adapt.SlowStart;
import io.hedgerow.root.search.SubRequest;

/**
 * What one connection learns of its leaf from what it sends and hears: the leaf's load and silence
 * ({@link LeafLoad}, for the replica choice and stall detection) and latency samples for
 * {@link Probation} and {@link SlowStart}. Shared by {@link LeafConnection} and {@link io.hedgerow.root.fanout.DetachedRoot}, so the simulator
 * learns as a connection does. Confined to one event loop (or the simulator's thread); times come in
 * with the calls.
 */
public final class LeafListener {
    private final int leaf;
    private final Probation probation;
    private final SlowStart slowStart;
    private final LeafLoad load = new LeafLoad();

    public LeafListener(int leaf, Probation probation, SlowStart slowStart) {
        this.leaf = leaf;
        this.probation = probation;
        this.slowStart = slowStart;
    }

    public LeafLoad load() {
        return load;
    }

    /** A call goes out at {@code nowNanos}, with {@code outstandingBefore} already owed. */
    public void sent(long nowNanos, int outstandingBefore) {
        load.sent(nowNanos, outstandingBefore);
    }

    /** Any answer came at {@code nowNanos}: the leaf is not silent. */
    public void heard(long nowNanos) {
        load.heard(nowNanos);
    }

    /**
     * A search answer to {@code copy} came at {@code nowNanos} (after {@link #heard}): an OK one is a sample of the leaf's
     * latency, whether the root still waited for it or had cancelled it (a slow leaf's copies are the
     * ones cancelled). Batch work, queued behind the rest, is not.
     */
    public void searched(SubRequest copy, SearchResponse response, long nowNanos) {
        if (response.getStatus() != Status.OK || copy.priority() == Priority.BATCH) {
            return;
        }
        long roundTripNanos = nowNanos - copy.sentNanos();
        load.searched(nowNanos, roundTripNanos, response.getServiceNanos(), response.getQueueLength());
        probation.record(leaf, roundTripNanos, nowNanos);
        slowStart.record(leaf, roundTripNanos);
    }
}
