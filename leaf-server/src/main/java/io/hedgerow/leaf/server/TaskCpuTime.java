package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;

/**
 * The work-clock time (the worker's thread CPU time, {@link ThreadCpuClock}) of the task each
 * worker runs: two readings for a task that runs in one go, as its service starts ({@link
 * #serviceStarts}, just after the task reads its service clock) and as it answers ({@link
 * #taskCpuNanos}). So taking a task (locks, waking from a park) is not charged to it and its CPU
 * time stays within its service time; what a worker does after its task answered is charged to no
 * task. A sliced search measures its slices itself
 * ({@link SliceBudget}), from the same start ({@link #taskStartNanos}).
 *
 * <p><b>Assumptions and guarantees.</b> Each worker's start is its own ({@link #startsOnThisThread}),
 * written and read only on its thread: no lock, no volatile. The work clock's readings mean something
 * only between readings on one thread. On a thread that is not a worker (an event loop, a test running
 * a task itself) there is no start: {@link #taskCpuNanos} is 0 there.
 */
final class TaskCpuTime {
    /** A worker's start: the work clock when its current task's service started. */
    private static final class Start {
        private final Ticker workClock;
        private long taskStartNanos;

        private Start(Ticker workClock) {
            this.workClock = workClock;
        }

        private void serviceStarts() {
            taskStartNanos = workClock.nanoTime();
        }
    }

    private final Ticker workClock;
    /** The calling worker's start; null on other threads. */
    private final ThreadLocal<Start> starts = new ThreadLocal<>();

    TaskCpuTime(Ticker workClock) {
        this.workClock = workClock;
    }

    /** Makes the calling thread a worker whose tasks are measured. */
    void startsOnThisThread() {
        starts.set(new Start(workClock));
    }

    /**
     * The calling worker's task started its service (it read its service clock): its CPU time
     * starts now, after that reading, so it stays within the service time. Nothing on a thread that
     * is not a worker.
     */
    void serviceStarts() {
        Start start = starts.get();
        if (start != null) {
            start.serviceStarts();
        }
    }

    /** What each worker's slices are measured on; read it on the worker that runs the slice. */
    Ticker workClock() {
        return workClock;
    }

    /**
     * The work clock when the calling worker's current task's service started (what a sliced search's
     * first slice is measured from); no reading of the clock. On a thread that is not a worker, a
     * reading now.
     */
    long taskStartNanos() {
        Start start = starts.get();
        return start == null ? workClock.nanoTime() : start.taskStartNanos;
    }

    /**
     * The work-clock time the calling worker spent on its current task so far, since it left the
     * queue: one reading of the clock, as the task answers. On a thread that is not a worker (a test
     * running a task itself): 0, nothing to measure from.
     */
    long taskCpuNanos() {
        Start start = starts.get();
        return start == null ? 0 : workClock.nanoTime() - start.taskStartNanos;
    }
}
