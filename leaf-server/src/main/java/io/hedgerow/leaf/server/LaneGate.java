package io.hedgerow.leaf.server;

import java.time.Duration;

/**
 * When the expensive lane may run, as pure code: only while no cheap work of the same class or a
 * higher one runs or waits at this leaf, unless the lane has waited {@code maxWait} for that, in
 * which case it runs one slice anyway (so a steady stream of cheap work slows expensive work down,
 * to about one slice in every {@code maxWait}, but never stops it).
 *
 * <p>Why a gate and not a lower CPU priority: on cores the operating system shares between several
 * processes a free worker is not a free core, and a lane thread at the same priority as the search
 * workers takes the core from them as often as they take it from it. Lowering the lane threads'
 * priority ({@code nice}, {@code SCHED_IDLE}) hands the core to cheap work, but a JVM must stop every
 * thread at a safepoint before a garbage collection, and a lane thread the operating system keeps
 * off the core delays that stop, and with it every search worker of the leaf: measured, safepoints
 * took up to 176 ms to begin with the lane at {@code SCHED_IDLE}. A lane worker waiting at the gate
 * is parked, which a safepoint does not wait for, and gives the core to cheap work as surely.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the scheduler calls it under its lock.
 * Time comes only from the callers' readings of the injected ticker.
 */
final class LaneGate {
    /** A lane worker that is not waiting at the gate. */
    static final long NOT_WAITING = Long.MIN_VALUE;

    private final long maxWaitNanos;
    /** Cheap tasks running now, by class. */
    private final int[] cheapRunning = new int[SchedulingConfig.CLASSES];

    /** @param maxWait how long lane work may be held back before it runs a slice anyway */
    LaneGate(Duration maxWait) {
        this.maxWaitNanos = maxWait.toNanos();
    }

    /** A search worker started a cheap task of wire priority {@code priority}. */
    void cheapStarted(int priority) {
        cheapRunning[SchedulingConfig.classOf(priority)]++;
    }

    /** A search worker's cheap task ended. */
    void cheapEnded(int priority) {
        int cls = SchedulingConfig.classOf(priority);
        if (cheapRunning[cls] <= 0) {
            throw new IllegalStateException("cheapEnded: no cheap " + SchedulingConfig.className(cls)
                    + " task runs (expected: one end per start)");
        }
        cheapRunning[cls]--;
    }

    /**
     * Whether cheap work holds the lane back from lane work of class {@code laneClass}: cheap work of
     * that class or a higher one runs, or waits ({@code cheapWaitingClass}, the highest class of cheap
     * work waiting, -1 for none).
     */
    boolean holdsBack(int laneClass, int cheapWaitingClass) {
        if (cheapWaitingClass >= 0 && cheapWaitingClass <= laneClass) {
            return true;
        }
        for (int cls = 0; cls <= laneClass && cls < cheapRunning.length; cls++) {
            if (cheapRunning[cls] > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a lane worker waiting since {@code waitingSinceNanos} ({@link #NOT_WAITING}: it just
     * came) may take lane work of class {@code laneClass} now.
     */
    boolean mayRun(int laneClass, int cheapWaitingClass, long waitingSinceNanos, long nowNanos) {
        return !holdsBack(laneClass, cheapWaitingClass) || waitedEnough(waitingSinceNanos, nowNanos);
    }

    /** Whether a lane worker waiting since then has waited the most the gate holds it. */
    private boolean waitedEnough(long waitingSinceNanos, long nowNanos) {
        return waitingSinceNanos != NOT_WAITING && nowNanos - waitingSinceNanos >= maxWaitNanos;
    }

    /** How much longer the gate may hold a lane worker waiting since then (at least 1 ns). */
    long waitLeftNanos(long waitingSinceNanos, long nowNanos) {
        long since = waitingSinceNanos == NOT_WAITING ? nowNanos : waitingSinceNanos;
        return Math.max(1, maxWaitNanos - (nowNanos - since));
    }
}
