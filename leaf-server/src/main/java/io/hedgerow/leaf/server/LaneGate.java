package io.hedgerow.leaf.server;

import java.time.Duration;
import java.util.Arrays;

/**
 * When the expensive lane may run, as pure code. Cheap work of a <em>higher</em> class than the
 * lane's work holds it back while it runs or waits, for at most {@code maxWait}, after which the
 * lane runs a slice anyway (so interactive work next to a batch lane goes first, and the batch lane
 * still moves). Cheap work of the lane's <em>own</em> class shares with it: while such work runs or
 * waits, each lane worker gets {@code share} of the time, as a credit that grows by {@code share} of
 * every nanosecond the worker waits for the gate and shrinks by the rest of every nanosecond it runs
 * while contended; the worker steps aside when its credit is spent and runs again once it is made
 * up. A worker that comes to lane work from idle starts as if it had just run a slice contended, so
 * lane work that arrives while cheap work runs waits about a slice for it. Without that share a steady stream of cheap work (a saturated leaf) would starve the lane, and
 * a closed loop of clients would fill up with expensive requests that never end.
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
 * Time comes only from the callers' readings of the injected ticker, in order per lane worker.
 * Lane workers are numbered from 0.
 */
final class LaneGate {
    /** A lane worker that is not waiting at the gate. */
    static final long NOT_WAITING = Long.MIN_VALUE;

    private final long maxWaitNanos;
    private final double share;
    /** The most credit a lane worker keeps: one slice, so it never runs more than that past its share. */
    private final long maxCreditNanos;
    /** Cheap tasks running now, by class. */
    private final int[] cheapRunning = new int[SchedulingConfig.CLASSES];
    /** Each lane worker's credit, in nanoseconds it may still run while contended. */
    private final double[] credit;
    /** When each lane worker's credit was last brought up to date. */
    private final long[] accountedAt;
    /** Each lane worker's state: {@link #IDLE}, {@link #WAITING} or {@link #RUNNING}. */
    private final byte[] state;
    private static final byte IDLE = 0;
    private static final byte WAITING = 1;
    private static final byte RUNNING = 2;

    /**
     * @param maxWait     how long cheap work of a higher class may hold lane work back before it runs a slice anyway
     * @param share       the part of each lane worker's time kept for it while cheap work of its own class is there,
     *                    above 0 and below 1
     * @param slice       a lane slice: the most credit a worker keeps
     * @param laneWorkers lane workers
     */
    LaneGate(Duration maxWait, double share, Duration slice, int laneWorkers) {
        if (!(share > 0 && share < 1)) {
            throw new IllegalArgumentException("share: " + share + " (expected: above 0 and below 1)");
        }
        this.maxWaitNanos = maxWait.toNanos();
        this.share = share;
        this.maxCreditNanos = slice.toNanos();
        this.credit = new double[laneWorkers];
        this.accountedAt = new long[laneWorkers];
        this.state = new byte[laneWorkers];
        Arrays.fill(credit, startingCredit());
    }

    /** As if the worker had just run a slice contended. */
    private double startingCredit() {
        return -(1 - share) * maxCreditNanos;
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
     * Whether cheap work of a class higher than {@code laneClass} runs or waits ({@code
     * cheapWaitingClass}, the highest class of cheap work waiting, -1 for none).
     */
    boolean higherClassThere(int laneClass, int cheapWaitingClass) {
        return cheapThere(0, laneClass - 1, cheapWaitingClass);
    }

    /** Whether cheap work of class {@code laneClass} itself runs or waits. */
    boolean ownClassThere(int laneClass, int cheapWaitingClass) {
        return cheapThere(laneClass, laneClass, cheapWaitingClass);
    }

    private boolean cheapThere(int fromClass, int toClass, int cheapWaitingClass) {
        if (cheapWaitingClass >= fromClass && cheapWaitingClass <= toClass) {
            return true;
        }
        for (int cls = Math.max(0, fromClass); cls <= toClass && cls < cheapRunning.length; cls++) {
            if (cheapRunning[cls] > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether lane worker {@code lane}, waiting since {@code waitingSinceNanos} ({@link #NOT_WAITING}:
     * it just came), may take lane work of class {@code laneClass} now.
     */
    boolean mayRun(int lane, int laneClass, int cheapWaitingClass, long waitingSinceNanos, long nowNanos) {
        account(lane, nowNanos);
        if (waitedEnough(waitingSinceNanos, nowNanos)) {
            return true;
        }
        if (higherClassThere(laneClass, cheapWaitingClass)) {
            return false;
        }
        return !ownClassThere(laneClass, cheapWaitingClass) || credit[lane] >= 0;
    }

    /** Lane worker {@code lane} took lane work (fresh or a search it paused) and runs it from now. */
    void laneRunning(int lane, long nowNanos) {
        account(lane, nowNanos);
        state[lane] = RUNNING;
    }

    /**
     * Whether lane worker {@code lane}, running lane work of class {@code laneClass}, should step
     * aside at the end of its slice: cheap work of a higher class is there, or cheap work of its own
     * class is and the worker has used its share. If it steps aside, it waits from now.
     */
    boolean stepsAside(int lane, int laneClass, int cheapWaitingClass, long nowNanos) {
        boolean higher = higherClassThere(laneClass, cheapWaitingClass);
        boolean own = ownClassThere(laneClass, cheapWaitingClass);
        long ranNanos = nowNanos - accountedAt[lane];
        accountedAt[lane] = nowNanos;
        if (higher || own) {
            // It ran contended: it earned its share of that time and spent all of it.
            credit[lane] = Math.max(-maxWaitNanos * share, credit[lane] - (1 - share) * ranNanos);
        }
        boolean aside = higher || own && credit[lane] < 0;
        state[lane] = aside ? WAITING : RUNNING;
        return aside;
    }

    /** Lane worker {@code lane} stopped running lane work (its search ended, or it paused); idempotent. */
    void laneStopped(int lane, long nowNanos) {
        if (state[lane] == RUNNING) {
            state[lane] = WAITING;
            accountedAt[lane] = nowNanos;
        }
    }

    /** Lane worker {@code lane} found no lane work: it starts afresh next time. */
    void laneIdle(int lane, long nowNanos) {
        credit[lane] = startingCredit();
        accountedAt[lane] = nowNanos;
        state[lane] = IDLE;
    }

    /**
     * How much longer the gate may hold lane worker {@code lane}, waiting since then for lane work of
     * class {@code laneClass} (at least 1 ns): until its maximum wait, or until it has made up its
     * credit when only cheap work of its own class holds it.
     */
    long waitLeftNanos(int lane, int laneClass, int cheapWaitingClass, long waitingSinceNanos, long nowNanos) {
        long since = waitingSinceNanos == NOT_WAITING ? nowNanos : waitingSinceNanos;
        long aging = maxWaitNanos - (nowNanos - since);
        if (!higherClassThere(laneClass, cheapWaitingClass) && credit[lane] < 0) {
            aging = Math.min(aging, (long) Math.ceil(-credit[lane] / share));
        }
        return Math.max(1, aging);
    }

    /** Lane worker {@code lane}'s credit now, in nanoseconds (for tests). */
    double credit(int lane) {
        return credit[lane];
    }

    /** A waiting worker earns its share of the time it waited; an idle one is waiting from now. */
    private void account(int lane, long nowNanos) {
        if (state[lane] == WAITING) {
            credit[lane] = Math.min(maxCreditNanos, credit[lane] + share * (nowNanos - accountedAt[lane]));
        } else if (state[lane] == IDLE) {
            state[lane] = WAITING;
        }
        accountedAt[lane] = nowNanos;
    }

    /** Whether a lane worker waiting since then has waited the most the gate holds it. */
    private boolean waitedEnough(long waitingSinceNanos, long nowNanos) {
        return waitingSinceNanos != NOT_WAITING && nowNanos - waitingSinceNanos >= maxWaitNanos;
    }
}
