package io.hedgerow.leaf.server;

import java.time.Duration;

/**
 * When the expensive lane may run, as pure code. Cheap work of a <em>higher</em> class than the
 * lane's work holds it back while it runs or waits, for at most {@code maxWait}, after which the
 * lane runs a slice anyway (so interactive work next to a batch lane goes first, and the batch lane
 * still moves). Cheap work of the lane's <em>own</em> class shares the leaf's CPU with it: the
 * lane keeps a credit, in CPU nanoseconds, that grows by {@code share} of every cheap task's CPU
 * time and shrinks by the rest of every lane slice's, kept within a few slices either way, so over
 * any stretch in which both have work the lane gets {@code share} of what the two spend. At the end
 * of a slice the lane steps aside while cheap work of its class runs or waits and its credit is
 * below zero, and runs again once cheap work has made the credit up (or is gone). A lane that ran
 * alone is in debt, so at a moderate load it steps aside for each burst of cheap work that comes.
 *
 * <p>The share holds the other way too: a credit above zero is CPU time the lane is owed, cheap work
 * having had more than its part while lane work waited or ran (the operating system gives a lane
 * thread no more of a core than any other thread, and a leaf has more search workers than lane
 * workers). While the lane is owed at least half a slice, a search worker leaves cheap work of the
 * lane's class or a lower one to the other search workers ({@link #holdsCheapBack}), as long as
 * another one runs cheap work, so one always does. The credit goes above zero only while lane work
 * is there.
 *
 * <p>Why a share of CPU time: without one a steady stream of cheap work (a saturated leaf) starved
 * the lane, and a closed loop of clients filled up with expensive requests that never ended (38% of
 * its throughput lost). Why CPU time and not wall time: the operating system shares the cores
 * between every leaf's threads, so half of a lane worker's wall time is far less than half of the
 * CPU.
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
 * Time comes only from the callers' readings: the injected ticker for waits, each worker's CPU
 * clock for what work cost.
 */
final class LaneGate {
    /** A lane worker that is not waiting at the gate. */
    static final long NOT_WAITING = Long.MIN_VALUE;

    private final long maxWaitNanos;
    private final double share;
    /** The most debt the lane keeps: how far back its share is kept. */
    private final double maxDebtNanos;
    /** The most the lane may be owed, and what it must be owed before cheap work is held back. */
    private final double maxOwedNanos;
    private final double holdAtNanos;
    /** Cheap tasks running now, by class. */
    private final int[] cheapRunning = new int[SchedulingConfig.CLASSES];
    /** Lane tasks running now, by class. */
    private final int[] laneRunning = new int[SchedulingConfig.CLASSES];
    /** CPU nanoseconds the lane may still spend against cheap work of its class (below 0: its debt). */
    private double credit;

    /**
     * @param maxWait how long cheap work of a higher class may hold lane work back before it runs a slice anyway
     * @param share   the lane's part of the CPU time while cheap work of its own class is there, above 0 and below 1
     * @param slice   a lane slice: the lane's debt is kept to a few of them
     */
    LaneGate(Duration maxWait, double share, Duration slice) {
        if (!(share > 0 && share < 1)) {
            throw new IllegalArgumentException("share: " + share + " (expected: above 0 and below 1)");
        }
        this.maxWaitNanos = maxWait.toNanos();
        this.share = share;
        this.maxDebtNanos = 4 * (1 - share) * slice.toNanos();
        this.maxOwedNanos = 4 * share * slice.toNanos();
        this.holdAtNanos = share * slice.toNanos();
    }

    /** A search worker started a cheap task of wire priority {@code priority}. */
    void cheapStarted(int priority) {
        cheapRunning[SchedulingConfig.classOf(priority)]++;
    }

    /**
     * A search worker's cheap task ended, after {@code cpuNanos} of CPU time: the lane earns its
     * share, up to nothing owed unless lane work waits ({@code laneWaiting}) or runs.
     */
    void cheapEnded(int priority, long cpuNanos, boolean laneWaiting) {
        int cls = SchedulingConfig.classOf(priority);
        if (cheapRunning[cls] <= 0) {
            throw new IllegalStateException("cheapEnded: no cheap " + SchedulingConfig.className(cls)
                    + " task runs (expected: one end per start)");
        }
        cheapRunning[cls]--;
        double most = laneWaiting || count(laneRunning) > 0 ? maxOwedNanos : 0;
        credit = Math.max(credit, Math.min(most, credit + share * Math.max(0, cpuNanos)));
    }

    /** A lane worker started (or resumed) a task of wire priority {@code priority}. */
    void laneStarted(int priority) {
        laneRunning[SchedulingConfig.classOf(priority)]++;
    }

    /** A lane worker's task ended or paused. */
    void laneStopped(int priority) {
        int cls = SchedulingConfig.classOf(priority);
        if (laneRunning[cls] <= 0) {
            throw new IllegalStateException("laneStopped: no " + SchedulingConfig.className(cls)
                    + " lane task runs (expected: one stop per start)");
        }
        laneRunning[cls]--;
    }

    /** A lane worker found no lane work: if no other runs any, the lane is owed nothing any more. */
    void laneIdle() {
        if (count(laneRunning) == 0) {
            credit = Math.min(0, credit);
        }
    }

    /**
     * Whether a search worker should leave cheap work of class {@code cheapClass} to the others for
     * now: the lane is owed at least half a slice, lane work of that class or a higher one waits
     * ({@code laneWaitingClass}, -1 for none) or runs, and another search worker runs cheap work.
     */
    boolean holdsCheapBack(int cheapClass, int laneWaitingClass) {
        if (credit < holdAtNanos || count(cheapRunning) == 0) {
            return false;
        }
        if (laneWaitingClass >= 0 && laneWaitingClass <= cheapClass) {
            return true;
        }
        for (int cls = 0; cls <= cheapClass && cls < laneRunning.length; cls++) {
            if (laneRunning[cls] > 0) {
                return true;
            }
        }
        return false;
    }

    /** A lane worker ran lane work for {@code cpuNanos} of CPU time: the lane spends the rest of its share of it. */
    void laneRan(long cpuNanos) {
        credit = Math.max(-maxDebtNanos, credit - (1 - share) * Math.max(0, cpuNanos));
    }

    /**
     * Whether a lane worker waiting since {@code waitingSinceNanos} ({@link #NOT_WAITING}: it just
     * came) may take lane work of class {@code laneClass} now ({@code cheapWaitingClass}: the
     * highest class of cheap work waiting, -1 for none).
     */
    boolean mayRun(int laneClass, int cheapWaitingClass, long waitingSinceNanos, long nowNanos) {
        return !stepsAside(laneClass, cheapWaitingClass) || waitedEnough(waitingSinceNanos, nowNanos);
    }

    /**
     * Whether lane work of class {@code laneClass} steps aside (at the end of a slice) or waits:
     * cheap work of a higher class is there, or cheap work of its own class is and the lane has
     * spent its share.
     */
    boolean stepsAside(int laneClass, int cheapWaitingClass) {
        return cheapThere(0, laneClass - 1, cheapWaitingClass)
                || credit < 0 && cheapThere(laneClass, laneClass, cheapWaitingClass);
    }

    /** How much longer the gate may hold a lane worker waiting since then (at least 1 ns). */
    long waitLeftNanos(long waitingSinceNanos, long nowNanos) {
        long since = waitingSinceNanos == NOT_WAITING ? nowNanos : waitingSinceNanos;
        return Math.max(1, maxWaitNanos - (nowNanos - since));
    }

    /** The lane's credit now, in CPU nanoseconds (above 0: owed; below: its debt). */
    double credit() {
        return credit;
    }

    /** Whether cheap work of a class from {@code fromClass} to {@code toClass} runs or waits. */
    private boolean cheapThere(int fromClass, int toClass, int cheapWaitingClass) {
        if (cheapWaitingClass >= fromClass && cheapWaitingClass <= toClass) {
            return true;
        }
        for (int cls = fromClass; cls <= toClass && cls < cheapRunning.length; cls++) {
            if (cheapRunning[cls] > 0) {
                return true;
            }
        }
        return false;
    }

    private static int count(int[] byClass) {
        int total = 0;
        for (int n : byClass) {
            total += n;
        }
        return total;
    }

    /** Whether a lane worker waiting since then has waited the most the gate holds it. */
    private boolean waitedEnough(long waitingSinceNanos, long nowNanos) {
        return waitingSinceNanos != NOT_WAITING && nowNanos - waitingSinceNanos >= maxWaitNanos;
    }
}
