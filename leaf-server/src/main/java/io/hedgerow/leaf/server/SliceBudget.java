package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;

/**
 * One search's slices on the work clock (the worker thread's CPU time): how much of the current
 * slice is left, and what the search has cost so far. The work done before the first step (parsing
 * and the cost estimate) counts against the first slice, as the set-up inside it does, so a query
 * whose set-up is its cost yields as soon as that is done.
 *
 * <p>A search is <em>running</em> from {@link #resumed} (or its creation) to {@link #paused}; its CPU
 * time is the sum of those stretches, each read on the worker that ran it.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: used by one worker at a time, each
 * hand-over to another worker ordered by the scheduler's lock. Every reading between {@code
 * resumed} and {@code paused} is on the same thread, as CPU-time differences require.
 */
final class SliceBudget {
    private final Ticker workClock;
    private long sliceNanos;
    private long stretchStartNanos;
    private long sliceStartNanos;
    private long cpuNanos;
    private int slices;
    private boolean running;

    /**
     * Starts the first stretch now, on the calling worker.
     *
     * @param sliceNanos a slice's budget; 0: one slice runs the whole search
     */
    SliceBudget(Ticker workClock, long sliceNanos) {
        this(workClock, sliceNanos, workClock.nanoTime());
    }

    /**
     * Starts the first stretch at {@code startNanos}, a reading of the work clock on the calling
     * worker (when its task began, so the work done before the search was set up counts).
     *
     * @param sliceNanos a slice's budget; 0: one slice runs the whole search
     */
    SliceBudget(Ticker workClock, long sliceNanos, long startNanos) {
        if (sliceNanos < 0) {
            throw new IllegalArgumentException("sliceNanos: " + sliceNanos + " (expected: >= 0)");
        }
        this.workClock = workClock;
        this.sliceNanos = sliceNanos;
        this.stretchStartNanos = startNanos;
        this.sliceStartNanos = stretchStartNanos;
        this.slices = 1;
        this.running = true;
    }

    /** A worker took the search (again): a new slice, unless this is the stretch the creation started. */
    void resumed() {
        if (running) {
            return;
        }
        running = true;
        slices++;
        stretchStartNanos = workClock.nanoTime();
        sliceStartNanos = stretchStartNanos;
    }

    /** What is left of the current slice's budget (at least 0); unlimited when searches are not sliced. */
    long sliceLeft() {
        if (sliceNanos == 0) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, sliceNanos - (workClock.nanoTime() - sliceStartNanos));
    }

    /**
     * From the current slice on, slices of {@code laneSliceNanos}: the search runs on a lane worker,
     * whose slices are shorter. Unsliced searches stay unsliced.
     */
    void useLaneSlices(long laneSliceNanos) {
        if (laneSliceNanos <= 0) {
            throw new IllegalArgumentException("laneSliceNanos: " + laneSliceNanos + " (expected: > 0)");
        }
        if (sliceNanos != 0) {
            sliceNanos = laneSliceNanos;
        }
    }

    /** The slice is used up but the search keeps its worker (nothing waits): a fresh budget. */
    void nextSlice() {
        sliceStartNanos = workClock.nanoTime();
    }

    /** The search leaves its worker (it yields or answers): the stretch's time is added. */
    void paused() {
        if (!running) {
            return;
        }
        running = false;
        cpuNanos += workClock.nanoTime() - stretchStartNanos;
    }

    /** Work-clock time over every stretch so far (the running one only once paused). */
    long cpuNanos() {
        return cpuNanos;
    }

    /** Times a worker took the search: 1 until it first yields. */
    int slices() {
        return slices;
    }
}
