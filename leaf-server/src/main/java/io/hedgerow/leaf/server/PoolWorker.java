package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;

/**
 * A worker thread's own state in the leaf's pool: whether it is one of the expensive lane's, and
 * the CPU time it spent since it last counted (what the lane's share is kept in, see {@link
 * LaneGate}).
 *
 * <p><b>Assumptions and guarantees.</b> Touched only by its own thread: CPU-time differences are
 * meaningful only between readings on one thread.
 */
final class PoolWorker {
    private final boolean lane;
    private final Ticker workClock;
    private long cpuMark;

    PoolWorker(boolean lane, Ticker workClock) {
        this.lane = lane;
        this.workClock = workClock;
    }

    /** Whether it is one of the lane's workers. */
    boolean lane() {
        return lane;
    }

    /** Counts CPU time from now (a task begins). */
    void startCounting() {
        cpuMark = workClock.nanoTime();
    }

    /** The CPU time spent since it last counted; counts from now. */
    long lap() {
        long now = workClock.nanoTime();
        long spent = now - cpuMark;
        cpuMark = now;
        return spent;
    }
}
