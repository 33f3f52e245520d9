package io.hedgerow.root.fanout;

import io.hedgerow.root.search.Action;

/**
 * Runs a search's timer. The search decides when on the root's ticker ({@link Action.ArmTimer});
 * this only runs the task after the delay, on the search's thread. The root's implementation is
 * its event loop; the delay is computed from the same ticker, so timers and deadlines agree.
 */
@FunctionalInterface
interface RunScheduler {

    /** A scheduled task that may still be cancelled. */
    @FunctionalInterface
    interface Scheduled {
        void cancel();
    }

    /** Runs {@code task} after {@code delayNanos} (>= 0). */
    Scheduled schedule(Runnable task, long delayNanos);
}
