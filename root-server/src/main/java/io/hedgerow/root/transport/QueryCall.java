package io.hedgerow.root.transport;

import io.hedgerow.root.search.SearchRun;
import io.hedgerow.root.search.SubRequest;

/**
 * The Netty side of one sub-request of a search: what a {@link LeafConnection} waits on, and
 * hands the answer (or the loss of the connection) to the search's {@link QueryCallListener}. The
 * sub-request itself, and every decision about it, is the {@link SearchRun}'s {@link SubRequest}.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the search's event loop.
 */
public abstract sealed class QueryCall implements LeafCall permits ShardCall, FetchCall {
    final QueryCallListener listener;
    private final LeafConnection connection;

    QueryCall(QueryCallListener listener, LeafConnection connection) {
        this.listener = listener;
        this.connection = connection;
    }

    /** The run's view of this sub-request. */
    public abstract SubRequest copy();

    @Override
    public final long requestId() {
        return copy().requestId();
    }

    @Override
    public final LeafConnection connection() {
        return connection;
    }

    @Override
    public final boolean isDone() {
        return copy().done();
    }

    @Override
    public final void markDone() {
        // The run marks its sub-requests done (answered, lost or cancelled).
    }

    @Override
    public final void connectionLost(String reason) {
        listener.lost(this, reason);
    }
}
