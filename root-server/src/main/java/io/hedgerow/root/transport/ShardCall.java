package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.search.SearchCopy;

/** One copy of a partition's search, waiting on its leaf's connection. */
public final class ShardCall extends QueryCall {
    private final SearchCopy copy;

    public ShardCall(QueryCallListener listener, SearchCopy copy, LeafConnection connection) {
        super(listener, connection);
        this.copy = copy;
    }

    @Override
    public SearchCopy copy() {
        return copy;
    }

    void answered(SearchResponse response, long nowNanos) {
        listener.answered(this, response, nowNanos);
    }
}
