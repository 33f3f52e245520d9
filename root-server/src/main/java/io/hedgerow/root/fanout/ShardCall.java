package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.SearchResponse;

/**
 * One sub-request in flight: a partition of one query, sent to one leaf. A partition may have
 * several over a query's life (a retry after a failure, a backup).
 */
final class ShardCall {
    private final Gatherer gatherer;
    private final int partition;
    private final LeafConnection connection;
    private final long requestId;
    private final long sentNanos;
    private boolean done;

    ShardCall(Gatherer gatherer, int partition, LeafConnection connection, long requestId, long sentNanos) {
        this.gatherer = gatherer;
        this.partition = partition;
        this.connection = connection;
        this.requestId = requestId;
        this.sentNanos = sentNanos;
    }

    int partition() {
        return partition;
    }

    LeafConnection connection() {
        return connection;
    }

    int leaf() {
        return connection.leaf();
    }

    long requestId() {
        return requestId;
    }

    long sentNanos() {
        return sentNanos;
    }

    /** True once answered, failed or cancelled. */
    boolean isDone() {
        return done;
    }

    void markDone() {
        done = true;
    }

    void answered(SearchResponse response) {
        gatherer.onAnswer(this, response);
    }

    void connectionLost(String reason) {
        gatherer.onConnectionLost(this, reason);
    }
}
