package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.api.SubRequestTrace;

/** The fetch phase for some of a query's merged hits, all held by one leaf. */
final class FetchCall extends QueryCall {
    private final int[] hits;

    /**
     * @param hits positions in the merged hit list that this fetch fills, in request order
     */
    FetchCall(Gatherer gatherer, LeafConnection connection, long requestId, int[] hits, long sentNanos) {
        super(gatherer, connection, requestId, SubRequestTrace.Kind.FETCH, sentNanos);
        this.hits = hits;
    }

    int[] hits() {
        return hits;
    }

    void answered(FetchResponse response) {
        gatherer.onFetched(this, response);
    }

    @Override
    void answeredAfterCancel(Status status, boolean cutShort) {
        gatherer.onAnswerAfterCancel(this, status, cutShort);
    }

    @Override
    public void connectionLost(String reason) {
        gatherer.onFetchLost(this, reason);
    }
}
