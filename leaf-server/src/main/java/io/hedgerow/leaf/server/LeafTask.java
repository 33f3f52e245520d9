package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import org.apache.lucene.index.QueryTimeout;

/**
 * One request at the leaf, from arrival to answer: a search of one partition, or a fetch. It is
 * also the work's {@link QueryTimeout}, so a cancel or a passed deadline stops running work at
 * its next check.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #run()} runs once, on a worker. {@link #cancel()}
 * may be called from any thread at any time; a task cancelled before it runs does no work and
 * sends nothing (whoever cancelled it stopped waiting).
 */
abstract class LeafTask implements Runnable, QueryTimeout {
    private final long requestId;
    private final OutboundBatcher replyTo;
    private final long receivedNanos;
    /** Absolute deadline on the leaf's ticker; meaningful only when {@link #hasDeadline}. */
    private final long deadlineNanos;
    private final boolean hasDeadline;
    protected final LeafContext leaf;
    private volatile boolean cancelled;

    LeafTask(long requestId, long budgetNanos, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        this.requestId = requestId;
        this.replyTo = replyTo;
        this.leaf = leaf;
        this.receivedNanos = receivedNanos;
        this.hasDeadline = budgetNanos > 0;
        this.deadlineNanos = receivedNanos + budgetNanos;
    }

    final long requestId() {
        return requestId;
    }

    final OutboundBatcher replyTo() {
        return replyTo;
    }

    final void cancel() {
        cancelled = true;
    }

    @Override
    public final boolean shouldExit() {
        return cancelled || expiredAt(leaf.ticker().nanoTime());
    }

    final boolean expiredAt(long nowNanos) {
        return hasDeadline && nowNanos - deadlineNanos >= 0;
    }

    @Override
    public final void run() {
        try {
            if (cancelled) {
                return;
            }
            long startNanos = leaf.ticker().nanoTime();
            replyTo.send(execute(startNanos, startNanos - receivedNanos));
        } finally {
            leaf.inflight().remove(requestId, this);
        }
    }

    /**
     * Does the work and builds the answer.
     *
     * @param startNanos when a worker took the task
     * @param queueNanos how long it waited for a worker
     */
    abstract Frame execute(long startNanos, long queueNanos);

    /** The answer to send at once when the queue is full. */
    abstract Frame busy();
}
