package io.hedgerow.leaf.server;

import java.util.concurrent.locks.LockSupport;

/**
 * How injected faults hold one task's worker (see {@link LeafTask}, "Injected faults"): parked, as
 * a GC pause or a slow disk would hold a real search, so the worker takes nothing else from the
 * shared queue. Every hold ends at the task's deadline, at a cancel (which {@link #wake wakes} the
 * worker), when its fault is cleared, or when the worker is interrupted.
 *
 * <p><b>Assumptions and guarantees.</b> The hold methods run on the task's worker; {@link #wake}
 * may be called from any thread. The worker publishes itself before it reads the task's state or
 * stop flag, and a cancel sets those before it calls {@code wake}, so either the worker sees the
 * cancel or the cancel sees (and unparks) the worker.
 */
final class FaultHolds {
    private final LeafTask task;
    /** The worker while it is held, so a cancel can wake it. */
    private volatile Thread heldWorker;

    FaultHolds(LeafTask task) {
        this.task = task;
    }

    /** Wakes the worker if a fault holds it (a cancel, or the task dropped). */
    void wake() {
        Thread worker = heldWorker;
        if (worker != null) {
            LockSupport.unpark(worker);
        }
    }

    /** Holds the worker, the task still queued, while the leaf is in an injected stall. */
    void queuedThroughStall() {
        LeafContext leaf = task.leaf;
        long stallNanos = leaf.faults().stallRemainingNanos();
        if (stallNanos == 0) {
            return;
        }
        leaf.counters().stallHolds.increment();
        Thread worker = Thread.currentThread();
        heldWorker = worker;
        try {
            while (stallNanos > 0 && task.isQueued() && !worker.isInterrupted()) {
                long nowNanos = leaf.ticker().nanoTime();
                if (task.expiredAt(nowNanos)) {
                    return;
                }
                LockSupport.parkNanos(this, parkNanos(stallNanos, nowNanos));
                // Woken early by a cancel, a new or cleared stall, or spuriously: the loop re-checks.
                stallNanos = leaf.faults().stallRemainingNanos();
            }
        } finally {
            heldWorker = null;
        }
    }

    /** Holds a running task at a check while the leaf is in a stall; true if it should exit then. */
    boolean runningThroughStall(long stallNanos) {
        LeafContext leaf = task.leaf;
        leaf.counters().stallHolds.increment();
        Thread worker = Thread.currentThread();
        heldWorker = worker;
        try {
            while (true) {
                if (task.stopRequested() || worker.isInterrupted()) {
                    return true;
                }
                long nowNanos = leaf.ticker().nanoTime();
                if (task.expiredAt(nowNanos)) {
                    return true;
                }
                if (stallNanos == 0) {
                    return false;
                }
                LockSupport.parkNanos(this, parkNanos(stallNanos, nowNanos));
                stallNanos = leaf.faults().stallRemainingNanos();
            }
        } finally {
            heldWorker = null;
        }
    }

    /**
     * Holds the running task until {@code untilNanos}, the deadline, a cancel, the delay's clearing
     * or an interrupt, whichever is first.
     */
    void running(long untilNanos) {
        LeafContext leaf = task.leaf;
        long endNanos = task.hasDeadline() && task.deadlineNanos() - untilNanos < 0 ? task.deadlineNanos() : untilNanos;
        Thread worker = Thread.currentThread();
        heldWorker = worker;
        try {
            long remainingNanos;
            // parkNanos may return early (a stale unpark, a spurious wake-up): the loop re-checks.
            // A cleared delay releases what it holds, as a slow disk that recovered would.
            while (!task.stopRequested() && !worker.isInterrupted() && leaf.faults().delayInEffect()
                    && (remainingNanos = endNanos - leaf.ticker().nanoTime()) > 0) {
                LockSupport.parkNanos(this, remainingNanos);
            }
        } finally {
            heldWorker = null;
        }
    }

    /** The stall left, no longer than the time to the task's deadline. */
    private long parkNanos(long stallNanos, long nowNanos) {
        return task.hasDeadline() ? Math.min(stallNanos, task.deadlineNanos() - nowNanos) : stallNanos;
    }
}
