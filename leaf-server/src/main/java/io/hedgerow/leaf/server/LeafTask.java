package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.QueryTimeout;

/**
 * One request at the leaf, from arrival to answer: a search of one partition, or a fetch. It is
 * also the work's {@link QueryTimeout}, so a cancel or a passed deadline stops running work at
 * its next check.
 *
 * <p><b>Injected delays</b> (fault injection, for tests and demos) hold the task on its worker
 * before the work starts, parked, as a slow disk or a GC pause would hold a real search. That is
 * the point: an occupied worker takes nothing else from the shared queue, so requests behind it
 * wait and the queue backs up, which is what real interference does to a leaf. (Delaying only
 * the answer, with a timer, would leave the worker free and the queue empty: a slow network, not a
 * slow leaf.) The hold counts as service time, and ends early at the request's deadline or when a
 * cancel unparks the worker; the search that follows then stops at its first check and answers
 * {@code cut_short}, as a search stalled mid-way would. Nothing ever waits on an event loop.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #run()} runs once, on a worker. {@link #cancel()}
 * may be called from any thread at any time; a task cancelled before it runs does no work and
 * sends nothing (whoever cancelled it stopped waiting). A cancel during an injected delay ends
 * the delay at once: the worker publishes itself in {@code stalledWorker} before it checks
 * {@code cancelled}, and a cancel sets {@code cancelled} before it reads {@code stalledWorker},
 * so one of the two always sees the other.
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
    /** The worker while it is held by an injected delay, so a cancel can wake it. */
    private volatile Thread stalledWorker;

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
        Thread worker = stalledWorker;
        if (worker != null) {
            LockSupport.unpark(worker);
        }
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
            long delayNanos = leaf.faults().nextDelayNanos();
            if (delayNanos > 0) {
                stall(startNanos + delayNanos);
            }
            replyTo.send(execute(startNanos, startNanos - receivedNanos));
        } finally {
            leaf.inflight().remove(requestId, this);
        }
    }

    /** Holds this worker until {@code untilNanos}, the deadline, a cancel or an interrupt, whichever is first. */
    private void stall(long untilNanos) {
        long endNanos = hasDeadline && deadlineNanos - untilNanos < 0 ? deadlineNanos : untilNanos;
        Thread worker = Thread.currentThread();
        stalledWorker = worker;
        try {
            long remainingNanos;
            // parkNanos may return early (a stale unpark, a spurious wake-up): the loop re-checks.
            while (!cancelled && !worker.isInterrupted()
                    && (remainingNanos = endNanos - leaf.ticker().nanoTime()) > 0) {
                LockSupport.parkNanos(this, remainingNanos);
            }
        } finally {
            stalledWorker = null;
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
