package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.SearchResponse;

/**
 * The query phase of one partition of one query, sent to one leaf. A partition may have several
 * over a query's life (a retry after a failure, a backup).
 */
final class ShardCall implements LeafCall {
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

    @Override
    public LeafConnection connection() {
        return connection;
    }

    int leaf() {
        return connection.leaf();
    }

    @Override
    public long requestId() {
        return requestId;
    }

    long sentNanos() {
        return sentNanos;
    }

    @Override
    public boolean isDone() {
        return done;
    }

    @Override
    public void markDone() {
        done = true;
    }

    void answered(SearchResponse response) {
        gatherer.onAnswer(this, response);
    }

    @Override
    public void connectionLost(String reason) {
        gatherer.onConnectionLost(this, reason);
    }
}
