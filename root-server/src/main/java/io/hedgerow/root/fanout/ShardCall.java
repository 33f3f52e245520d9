package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.SearchResponse;

/** One copy of a partition's search, waiting on its leaf's connection. */
final class ShardCall extends QueryCall {
    private final SearchCopy copy;

    ShardCall(Gatherer gatherer, SearchCopy copy, LeafConnection connection) {
        super(gatherer, connection);
        this.copy = copy;
    }

    @Override
    SearchCopy copy() {
        return copy;
    }

    void answered(SearchResponse response) {
        gatherer.answered(this, response);
    }
}
