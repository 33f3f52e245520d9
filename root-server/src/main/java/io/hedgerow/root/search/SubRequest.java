package io.hedgerow.root.search;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Priority;
import io.hedgerow.common.wire.proto.Status;
import java.util.Arrays;
import java.util.Locale;

/**
 * One sub-request of a search as the {@link SearchRun} sees it: which leaf it went to, why, when,
 * and what became of it. No I/O: the Netty adapter holds a {@link io.hedgerow.root.transport.QueryCall} that points at it.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its search's event loop, like the run.
 */
public abstract sealed class SubRequest permits SearchCopy, FetchCopy {
    /** Each status's name in lower case, made once: not a new string for every answer. */
    private static final String[] STATUS_NAMES = Arrays.stream(Status.values())
            .map(status -> status.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    private final int leaf;
    private final long requestId;
    private final SubRequestTrace.Kind kind;
    private final Priority priority;
    private final long sentNanos;
    private long answeredNanos;
    /** The leaf's answer, lower case, or {@code connection_lost}; null while none came. */
    private String status;
    private boolean used;
    private boolean cancelled;
    private boolean done;

    SubRequest(int leaf, long requestId, SubRequestTrace.Kind kind, Priority priority, long sentNanos) {
        this.leaf = leaf;
        this.requestId = requestId;
        this.kind = kind;
        this.priority = priority;
        this.sentNanos = sentNanos;
    }

    public final int leaf() {
        return leaf;
    }

    public final long requestId() {
        return requestId;
    }

    public final SubRequestTrace.Kind kind() {
        return kind;
    }

    /** The leaves' scheduling class it was sent at. */
    public final Priority priority() {
        return priority;
    }

    public final long sentNanos() {
        return sentNanos;
    }

    /** Answered, lost or cancelled: nothing more is expected of it. */
    public final boolean done() {
        return done;
    }

    final boolean used() {
        return used;
    }

    public final boolean cancelled() {
        return cancelled;
    }

    final void noteAnswer(long nowNanos, Status answer) {
        done = true;
        answeredNanos = nowNanos;
        status = STATUS_NAMES[answer.ordinal()];
    }

    final void noteLost(long nowNanos) {
        done = true;
        answeredNanos = nowNanos;
        status = "connection_lost";
    }

    final void markUsed() {
        used = true;
    }

    /** The root stops waiting for it and tells its leaf to drop it. */
    final void markCancelled() {
        cancelled = true;
        done = true;
    }

    /** The partition searched, or -1 for a fetch (which may span partitions). */
    public abstract int tracePartition();

    /** For an explained search: names are made here, not on every answer. */
    final SubRequestTrace trace(String leafName, long searchStartNanos) {
        return new SubRequestTrace(tracePartition(), leafName, kind, (sentNanos - searchStartNanos) / 1e6,
                status == null ? null : (answeredNanos - searchStartNanos) / 1e6, status, used, cancelled);
    }

    @Override
    public String toString() {
        return kind.label() + (tracePartition() >= 0 ? " of partition " + tracePartition() : "") + " to leaf " + leaf
                + " at " + priority + " (request " + requestId + ")";
    }
}
