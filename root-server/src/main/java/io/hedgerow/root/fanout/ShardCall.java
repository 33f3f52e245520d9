package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.api.SubRequestTrace;

/**
 * The query phase of one partition of one query, sent to one leaf. A partition may have several
 * over a query's life (a retry after a failure, a backup, a tied twin).
 */
final class ShardCall extends QueryCall {
    private final int partition;
    private final Priority priority;
    /** Cancelled because a tied twin answered first: its late answer tells whether both ran. */
    private boolean tiedLoser;

    ShardCall(Gatherer gatherer, int partition, LeafConnection connection, long requestId, SubRequestTrace.Kind kind,
            Priority priority, long sentNanos) {
        super(gatherer, connection, requestId, kind, sentNanos);
        this.partition = partition;
        this.priority = priority;
    }

    /** The leaves' class it was sent at. */
    Priority priority() {
        return priority;
    }

    int partition() {
        return partition;
    }

    void markTiedLoser() {
        tiedLoser = true;
    }

    boolean tiedLoser() {
        return tiedLoser;
    }

    void answered(SearchResponse response) {
        gatherer.onAnswer(this, response);
    }

    @Override
    void answeredAfterCancel(Status status, boolean cutShort) {
        gatherer.onAnswerAfterCancel(this, status, cutShort);
    }

    @Override
    public void connectionLost(String reason) {
        gatherer.onConnectionLost(this, reason);
    }

    SubRequestTrace trace(long queryStartNanos) {
        return trace(partition, queryStartNanos);
    }
}
