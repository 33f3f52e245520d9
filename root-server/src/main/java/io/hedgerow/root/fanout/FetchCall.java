package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.FetchResponse;

/** The fetch phase for some of a query's merged hits, all held by one leaf. */
final class FetchCall implements LeafCall {
    private final Gatherer gatherer;
    private final LeafConnection connection;
    private final long requestId;
    private final int[] hits;
    private boolean done;

    /**
     * @param hits positions in the merged hit list that this fetch fills, in request order
     */
    FetchCall(Gatherer gatherer, LeafConnection connection, long requestId, int[] hits) {
        this.gatherer = gatherer;
        this.connection = connection;
        this.requestId = requestId;
        this.hits = hits;
    }

    int[] hits() {
        return hits;
    }

    @Override
    public long requestId() {
        return requestId;
    }

    @Override
    public LeafConnection connection() {
        return connection;
    }

    @Override
    public boolean isDone() {
        return done;
    }

    @Override
    public void markDone() {
        done = true;
    }

    void answered(FetchResponse response) {
        gatherer.onFetched(this, response);
    }

    @Override
    public void connectionLost(String reason) {
        gatherer.onFetchLost(this, reason);
    }
}
