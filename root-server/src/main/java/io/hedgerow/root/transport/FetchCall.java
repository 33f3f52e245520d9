package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.root.search.FetchCopy;

/** One fetch of merged hits' details, waiting on its leaf's connection. */
public final class FetchCall extends QueryCall {
    private final FetchCopy copy;

    public FetchCall(QueryCallListener listener, FetchCopy copy, LeafConnection connection) {
        super(listener, connection);
        this.copy = copy;
    }

    @Override
    public FetchCopy copy() {
        return copy;
    }

    void answered(FetchResponse response, long nowNanos) {
        listener.fetched(this, response, nowNanos);
    }
}
