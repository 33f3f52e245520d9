package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.root.metrics.RootMetrics;

/**
 * What a search's calls report to: the adapter that runs the search ({@code
 * io.hedgerow.root.fanout.Gatherer}). An interface so that the transport does not depend on the
 * adapter above it. Called on the search's event loop.
 */
public interface QueryCallListener {
    /** The leaf answered a copy of a partition's search. */
    void answered(ShardCall call, SearchResponse response);

    /** The leaf answered a fetch. */
    void fetched(FetchCall call, FetchResponse response);

    /** The call's connection was lost before its answer came. */
    void lost(QueryCall call, String reason);

    /** Where the calls count what cancels did. */
    RootMetrics metrics();
}
