package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.api.SubRequestTrace;

/**
 * A sub-request of one query (a partition's search or a fetch), with what an explained query
 * shows of it: why it was sent, when, and what came of it.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to the query's event loop.
 */
abstract sealed class QueryCall implements LeafCall permits ShardCall, FetchCall {
    final Gatherer gatherer;
    private final LeafConnection connection;
    private final long requestId;
    private final SubRequestTrace.Kind kind;
    private final long sentNanos;
    private long answeredNanos;
    /** The leaf's answer; null while none came (or the connection was lost). */
    private Status answer;
    private boolean lost;
    private boolean used;
    private boolean cancelled;
    private boolean done;

    QueryCall(Gatherer gatherer, LeafConnection connection, long requestId, SubRequestTrace.Kind kind, long sentNanos) {
        this.gatherer = gatherer;
        this.connection = connection;
        this.requestId = requestId;
        this.kind = kind;
        this.sentNanos = sentNanos;
    }

    @Override
    public final long requestId() {
        return requestId;
    }

    @Override
    public final LeafConnection connection() {
        return connection;
    }

    final int leaf() {
        return connection.leaf();
    }

    final SubRequestTrace.Kind kind() {
        return kind;
    }

    final long sentNanos() {
        return sentNanos;
    }

    @Override
    public final boolean isDone() {
        return done;
    }

    @Override
    public final void markDone() {
        done = true;
    }

    /** Notes the leaf's answer (or the loss of the connection) for the trace. */
    final void noteAnswer(long nowNanos, Status status) {
        answeredNanos = nowNanos;
        answer = status;
    }

    final void noteLost(long nowNanos) {
        answeredNanos = nowNanos;
        lost = true;
    }

    final void markUsed() {
        used = true;
    }

    final void markCancelled() {
        cancelled = true;
        done = true;
    }

    /**
     * The leaf's answer to a sub-request the root had cancelled: it tells whether the cancel came in
     * time ({@link Status#CANCELLED}), stopped the work ({@code cutShort}), or was too late.
     */
    abstract void answeredAfterCancel(Status status, boolean cutShort);

    final boolean cancelled() {
        return cancelled;
    }

    /** Only for explained queries: names are made here, not on every answer. */
    final SubRequestTrace trace(int partition, long queryStartNanos) {
        String status = lost ? "connection_lost" : answer == null ? null : answer.name().toLowerCase();
        return new SubRequestTrace(partition, connection.status().name(), kind,
                (sentNanos - queryStartNanos) / 1e6,
                status == null ? null : (answeredNanos - queryStartNanos) / 1e6,
                status, used, cancelled);
    }
}
