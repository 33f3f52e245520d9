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
    /**
     * The leaf answered a copy of a partition's search, heard at {@code nowNanos} on the root's
     * ticker (the connection's one clock read for the answer, which everything that books it shares).
     */
    void answered(ShardCall call, SearchResponse response, long nowNanos);

    /** The leaf answered a fetch, heard at {@code nowNanos} (as for {@link #answered}). */
    void fetched(FetchCall call, FetchResponse response, long nowNanos);

    /** The call's connection was lost before its answer came. */
    void lost(QueryCall call, String reason);

    /** Where the calls count what cancels did. */
    RootMetrics metrics();
}
