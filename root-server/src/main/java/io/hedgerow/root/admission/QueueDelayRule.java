package io.hedgerow.root.admission;

/**
 * Whether the root's admission queue has a standing delay that keeps growing, so that the next
 * search should be refused at once rather than queued: the CoDel idea (Nichols and Jacobson,
 * "Controlling Queue Delay", 2012), decided when a search arrives, not when it leaves the queue,
 * so a refusal is immediate and no search is refused after having waited.
 *
 * <p>CoDel watches the least delay a packet spent in the queue over an interval (about a round
 * trip): a queue whose every packet waited more than the target (5 ms) for a whole interval (100 ms)
 * is a standing queue, not a burst, and it starts dropping. This rule keeps CoDel's measure (the
 * least delay over each interval of {@code intervalNanos}, fed the delay of each search as it leaves
 * the queue and the age of the oldest waiting one as each search arrives) and its exit (one delay
 * below the target, or an empty queue, ends it), but it sheds only a standing delay that also
 * <em>keeps growing because more searches arrive than end</em>, over {@link #GROWING_INTERVALS}
 * intervals in a row: from each interval to the next, the least delay rose by at least the target
 * and the least number of searches outstanding (queued or running) rose by at least what it takes
 * to explain that rise at the rate searches left the queue (that rate times the target).
 *
 * <p>The second condition is what tells a closed loop from an overload. A closed loop of more
 * clients than the concurrency limit holds a standing queue by construction, and its delay can grow
 * for a while (the searches slow down, the limit falls), but its outstanding searches cannot: each
 * client waits for its own answer, so there are never more than its connections. Refusing it would
 * only make its clients send again (the issue asks that such a loop, up to 256 connections, see no
 * refusal; on Europarl at 64 connections the delay alone shed a burst of about 30 searches every few
 * seconds). An open loop over capacity grows both by its excess every interval, which this catches
 * within a few intervals.
 *
 * <p>Once shedding, the rule keeps the queue short rather than emptying it: an arrival is refused
 * while the oldest waiting search has waited {@link #HELD_TARGETS} targets or more (25 ms by
 * default), and queued otherwise, so the leaves stay busy and what is admitted is answered about as
 * fast as at full load, while the rest is refused at once. Before, shedding refused every arrival
 * until the queue had drained empty, then let a new queue grow past the tolerance before shedding
 * again: at twice the capacity the admitted searches waited 0 to 700 ms, and those near the end of
 * their 1 s deadline were answered tainted or not at all (issue 30's overload run: half the capacity
 * answered). Shedding ends when no arrival has been refused for a whole interval: the arrivals no
 * longer outgrow the queue (as CoDel's dropping state ends once the delay is back under the target).
 *
 * <p>A third condition tells a transient from an overload: the rule sheds only once the least delay
 * of the last interval has also reached {@code toleratedNanos}. A leaf killed under half capacity
 * makes the delay grow for a second or two, as its searches move to the other copies and its restart
 * takes CPU from them, and refusing then fails searches that would have been answered a few hundred
 * milliseconds late (issue 30: 0, 61 and 314 refused in three such runs, in a burst about 3 s after
 * the kill). A real overload grows past any fixed tolerance within a fraction of a second (at twice
 * the capacity, by a second every second), so it is still shed fast; the search's own deadline
 * ({@link AdmissionQueue}) still refuses what could not be answered in time.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: its owner ({@link AdmissionQueue}) calls it
 * under its lock. Time comes only from the arguments (ticker readings of one ticker); no clock,
 * thread or allocation of its own.
 */
final class QueueDelayRule {
    /** Intervals in a row over which the least delay must rise by the target before arrivals are refused. */
    static final int GROWING_INTERVALS = 3;
    /** While shedding, the queue delay held: this many targets (25 ms at the default 5 ms). */
    static final int HELD_TARGETS = 5;

    private static final long NONE = Long.MIN_VALUE;

    private final long targetNanos;
    private final long intervalNanos;
    private final long toleratedNanos;
    /** Start of the interval being measured; NONE while no standing delay is seen. */
    private long windowStartNanos = NONE;
    private long windowMinNanos;
    private int windowMinOutstanding;
    /** Searches that left the queue in the interval being measured. */
    private int windowDepartures;
    /** The least delay of the last closed interval; NONE when there is none. */
    private long lastMinNanos = NONE;
    private int lastMinOutstanding;
    /** Closed intervals in a row whose least delay rose by the target over the one before. */
    private int risingIntervals;
    private boolean shedding;
    /** While shedding: when an arrival was last refused (or shedding began). */
    private long lastRefusalNanos;

    /**
     * @param targetNanos    CoDel's target: a delay under it is no standing queue
     * @param intervalNanos  CoDel's interval: each step of a growing delay is measured over this
     * @param toleratedNanos a growing delay is shed only once an interval's least delay reaches this
     */
    QueueDelayRule(long targetNanos, long intervalNanos, long toleratedNanos) {
        if (targetNanos <= 0) {
            throw new IllegalArgumentException("targetNanos: " + targetNanos + " (expected: > 0)");
        }
        if (intervalNanos <= targetNanos) {
            throw new IllegalArgumentException("intervalNanos: " + intervalNanos + " (expected: > targetNanos "
                    + targetNanos + ")");
        }
        if (toleratedNanos < 0) {
            throw new IllegalArgumentException("toleratedNanos: " + toleratedNanos + " (expected: >= 0)");
        }
        this.targetNanos = targetNanos;
        this.intervalNanos = intervalNanos;
        this.toleratedNanos = toleratedNanos;
    }

    /**
     * A search that waits or waited {@code delayNanos} (it left the queue, or it is the oldest still
     * waiting) as of {@code nowNanos}, when {@code outstanding} searches were queued or running.
     *
     * @param departed true when the search is leaving the queue now
     */
    void observe(long delayNanos, long nowNanos, int outstanding, boolean departed) {
        if (shedding) {
            return; // the queue is held short now; only the arrivals say when the overload ends
        }
        if (delayNanos < targetNanos) {
            reset(); // the queue is drained in time: a burst, not a standing queue
            return;
        }
        if (windowStartNanos != NONE && nowNanos - windowStartNanos >= intervalNanos) {
            closeWindow();
            windowStartNanos = NONE;
        }
        if (windowStartNanos == NONE) {
            windowStartNanos = nowNanos;
            windowMinNanos = delayNanos;
            windowMinOutstanding = outstanding;
            windowDepartures = 0;
        } else {
            windowMinNanos = Math.min(windowMinNanos, delayNanos);
            windowMinOutstanding = Math.min(windowMinOutstanding, outstanding);
        }
        if (departed) {
            windowDepartures++;
        }
    }

    private void closeWindow() {
        // The backlog that delays the searches behind it by the target at the rate they left the queue.
        long backlogOfTarget = Math.max(1, (long) Math.ceil((double) windowDepartures * targetNanos / intervalNanos));
        if (lastMinNanos != NONE && windowMinNanos - lastMinNanos >= targetNanos
                && windowMinOutstanding - lastMinOutstanding >= backlogOfTarget) {
            risingIntervals++;
        } else {
            risingIntervals = 0;
        }
        lastMinNanos = windowMinNanos;
        lastMinOutstanding = windowMinOutstanding;
        if (risingIntervals >= GROWING_INTERVALS && windowMinNanos >= toleratedNanos) {
            shedding = true;
            lastRefusalNanos = windowStartNanos + intervalNanos;
        }
    }

    /**
     * Whether a search arriving at {@code nowNanos} is refused, when the oldest one waiting has
     * waited {@code oldestWaitNanos} (0: none waits). Ends the shedding first if no arrival was
     * refused for an interval.
     */
    boolean refuses(long oldestWaitNanos, long nowNanos) {
        if (!shedding) {
            return false;
        }
        if (nowNanos - lastRefusalNanos >= intervalNanos) {
            reset(); // the arrivals no longer outgrow the queue
            return false;
        }
        if (oldestWaitNanos < HELD_TARGETS * targetNanos) {
            return false;
        }
        lastRefusalNanos = nowNanos;
        return true;
    }

    /**
     * The queue is empty: whatever standing delay was building is gone. While shedding, the queue
     * was emptied by the refusals themselves, which go on while arrivals keep outgrowing it.
     */
    void queueEmptied() {
        if (!shedding) {
            reset();
        }
    }

    private void reset() {
        windowStartNanos = NONE;
        lastMinNanos = NONE;
        risingIntervals = 0;
        shedding = false;
    }

    /**
     * True while the queue is held short ({@link #refuses}): the standing delay kept growing, and
     * arrivals were refused within the last interval (as of the last arrival).
     */
    boolean shedding() {
        return shedding;
    }
}
