package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.FetchResponse;

/** One fetch of merged hits' details, waiting on its leaf's connection. */
final class FetchCall extends QueryCall {
    private final FetchCopy copy;

    FetchCall(Gatherer gatherer, FetchCopy copy, LeafConnection connection) {
        super(gatherer, connection);
        this.copy = copy;
    }

    @Override
    FetchCopy copy() {
        return copy;
    }

    void answered(FetchResponse response) {
        gatherer.fetched(this, response);
    }
}
