package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The scheduling policy of a leaf's workers, as pure code: per scheduling class, shallow bounded
 * queues of fresh work and a lower sub-queue of continuations, an expensive lane, taken highest
 * class first, with a starvation guard, aging and expiry at dequeue. It decides which task a free
 * worker takes next; {@link SearchScheduler} holds it under a lock and runs what it chooses.
 *
 * <ul>
 *   <li><b>Classes.</b> A worker takes a task of the highest class that has one it may take (0 is
 *       the highest).</li>
 *   <li><b>Shallow queues.</b> {@link #offer} refuses when the class's fresh work fills its depth,
 *       so the caller answers BUSY at once.</li>
 *   <li><b>Continuations</b> (a sliced search that used its slice and yielded, {@link #requeue}) go
 *       to a sub-queue below the fresh work of their class, as in a multi-level feedback queue: a
 *       task that ran a whole slice has shown it is long, and the fresh work may be short. They were
 *       admitted when they arrived, so they are never refused and do not count against the depth
 *       fresh requests see: parked expensive work cannot make cheap requests BUSY.</li>
 *   <li><b>Aging.</b> A continuation that has waited {@link SchedulingConfig#continuationAging()}
 *       goes ahead of the fresh work of its class, so a steady stream of fresh work cannot starve a
 *       long search.</li>
 *   <li><b>The expensive lane.</b> Work known to be expensive (its estimated cost is past {@link
 *       SchedulingConfig#expensiveCost()}) runs at most {@code laneWorkers} at a time: an expensive
 *       task is taken only while the lane has room, and holds its place in the lane until its slice
 *       ends ({@link #leaveLane}). With {@code laneWorkers} one less than the workers, a worker is
 *       always left for cheap work. Within a class, the oldest task a worker may take goes first,
 *       fresh before continuations.</li>
 *   <li><b>Starvation guard.</b> While a lower class has work a worker may take waiting behind a
 *       higher one, every {@code lowerClassEvery}-th dequeue takes the oldest such task of the lower
 *       classes (by when it was queued) instead.</li>
 *   <li><b>Expiry.</b> A task whose deadline passed while it waited is handed back by {@link #poll}
 *       in its {@code expired} list instead of being chosen (the caller answers it EXPIRED without
 *       running it) and does not count as a turn. Continuations have no deadline here: they already
 *       ran, and answer what they found.</li>
 * </ul>
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the caller serializes every call. Time
 * comes only from the injected ticker.
 */
final class ClassQueues<T> {
    /** The deadline of work that has none. */
    static final long NO_DEADLINE = Long.MIN_VALUE;
    /** No limit on the expensive lane (lanes off: nothing is expensive anyway). */
    static final int UNLIMITED_LANE = Integer.MAX_VALUE;

    /** Sub-queues of a class, in the order they are looked at. */
    private static final int FRESH = 0;
    private static final int FRESH_EXPENSIVE = 1;
    private static final int CONTINUED = 2;
    private static final int CONTINUED_EXPENSIVE = 3;
    private static final int SUBQUEUES = 4;

    private record Entry<T>(T task, long queuedNanos, long deadlineNanos) {
        boolean expiredAt(long nowNanos) {
            return deadlineNanos != NO_DEADLINE && nowNanos - deadlineNanos >= 0;
        }
    }

    private final SchedulingConfig config;
    private final Ticker ticker;
    private final int laneWorkers;
    private final long agingNanos;
    /** By class, then sub-queue. */
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Entry<T>>[][] queues = new ArrayDeque[SchedulingConfig.CLASSES][SUBQUEUES];
    private int size;
    /** Expensive tasks running now. */
    private int laneRunning;
    /** Dequeues in a row that took a higher class while a lower one waited. */
    private int passedOver;

    /** With no limit on expensive work (for callers that never mark any). */
    ClassQueues(SchedulingConfig config, Ticker ticker) {
        this(config, ticker, UNLIMITED_LANE);
    }

    /** @param laneWorkers the most expensive tasks that may run at once */
    ClassQueues(SchedulingConfig config, Ticker ticker, int laneWorkers) {
        if (laneWorkers < 1) {
            throw new IllegalArgumentException("laneWorkers: " + laneWorkers + " (expected: >= 1)");
        }
        this.config = config;
        this.ticker = ticker;
        this.laneWorkers = laneWorkers;
        this.agingNanos = config.continuationAging().toNanos();
        for (ArrayDeque<Entry<T>>[] byClass : queues) {
            for (int sub = 0; sub < SUBQUEUES; sub++) {
                byClass[sub] = new ArrayDeque<>();
            }
        }
    }

    /** Queues a cheap task (see {@link #offer(Object, int, long, boolean)}). */
    boolean offer(T task, int priority, long deadlineNanos) {
        return offer(task, priority, deadlineNanos, false);
    }

    /**
     * Queues fresh work of wire priority {@code priority} at the back of its class.
     *
     * @param deadlineNanos on the ticker, or {@link #NO_DEADLINE}
     * @param expensive     whether it runs in the expensive lane
     * @return false, with nothing queued, when its class's fresh work fills the class's depth
     */
    boolean offer(T task, int priority, long deadlineNanos, boolean expensive) {
        int cls = SchedulingConfig.classOf(priority);
        if (waitingFresh(priority) >= config.depth(cls)) {
            return false;
        }
        queues[cls][expensive ? FRESH_EXPENSIVE : FRESH].addLast(new Entry<>(task, ticker.nanoTime(), deadlineNanos));
        size++;
        return true;
    }

    /** Queues a cheap continuation (see {@link #requeue(Object, int, boolean)}). */
    void requeue(T continuation, int priority) {
        requeue(continuation, priority, false);
    }

    /**
     * Queues a continuation in its class's continuation sub-queue, even when the class is full: it
     * was admitted when it arrived.
     */
    void requeue(T continuation, int priority, boolean expensive) {
        int cls = SchedulingConfig.classOf(priority);
        queues[cls][expensive ? CONTINUED_EXPENSIVE : CONTINUED]
                .addLast(new Entry<>(continuation, ticker.nanoTime(), NO_DEADLINE));
        size++;
    }

    /** Takes a queued task or continuation out (a cancelled one); false if it is not queued. */
    boolean remove(T task, int priority) {
        for (ArrayDeque<Entry<T>> queue : queues[SchedulingConfig.classOf(priority)]) {
            if (queue.removeIf(entry -> entry.task() == task)) {
                size--;
                return true;
            }
        }
        return false;
    }

    /**
     * The task a free worker should run next, or null when nothing it may take waits. An expensive
     * task taken holds a place in the lane until {@link #leaveLane()}.
     *
     * @param expired receives, in the order met, the tasks found expired on the way (no longer queued)
     */
    T poll(List<T> expired) {
        long nowNanos = ticker.nanoTime();
        boolean laneFree = laneRunning < laneWorkers;
        while (size > 0) {
            int top = highestEligible(0, nowNanos, laneFree);
            if (top < 0) {
                return null;
            }
            int lower = highestEligible(top + 1, nowNanos, laneFree);
            boolean guardTurn = lower >= 0 && config.lowerClassEvery() > 0
                    && passedOver >= config.lowerClassEvery() - 1;
            int chosen = guardTurn ? oldestBelow(top, nowNanos, laneFree) : top;
            int sub = pick(chosen, nowNanos, laneFree);
            Entry<T> entry = queues[chosen][sub].pollFirst();
            size--;
            if (entry.expiredAt(nowNanos)) {
                expired.add(entry.task());
                continue;
            }
            passedOver = chosen == top && lower >= 0 ? passedOver + 1 : 0;
            if (sub == FRESH_EXPENSIVE || sub == CONTINUED_EXPENSIVE) {
                laneRunning++;
            }
            return entry.task();
        }
        return null;
    }

    /**
     * A running task found itself expensive (its cost estimated on a worker): takes a place in the
     * lane if there is room. False: it must wait in its class's expensive continuation sub-queue.
     */
    boolean tryEnterLane() {
        if (laneRunning >= laneWorkers) {
            return false;
        }
        laneRunning++;
        return true;
    }

    /** An expensive task's slice ended (it yielded or finished): its place in the lane is free. */
    void leaveLane() {
        if (laneRunning <= 0) {
            throw new IllegalStateException("leaveLane: no expensive task runs (expected: one per place taken)");
        }
        laneRunning--;
    }

    /** Expensive tasks running now. */
    int laneRunning() {
        return laneRunning;
    }

    /**
     * Whether a task a worker may take waits in {@code priority}'s class or a higher one: what a
     * running slice yields to.
     *
     * @param holdsLane the asking task holds a place in the expensive lane, which yielding would free
     */
    boolean hasWaitingAtOrAbove(int priority, boolean holdsLane) {
        if (size == 0) {
            return false;
        }
        boolean laneFree = laneRunning - (holdsLane ? 1 : 0) < laneWorkers;
        int top = highestEligible(0, ticker.nanoTime(), laneFree);
        return top >= 0 && top <= SchedulingConfig.classOf(priority);
    }

    /** As {@link #hasWaitingAtOrAbove(int, boolean)} for a task outside the lane. */
    boolean hasWaitingAtOrAbove(int priority) {
        return hasWaitingAtOrAbove(priority, false);
    }

    /** Tasks and continuations waiting in all classes. */
    int size() {
        return size;
    }

    /** Tasks and continuations waiting in {@code priority}'s class. */
    int size(int priority) {
        int waiting = 0;
        for (ArrayDeque<Entry<T>> queue : queues[SchedulingConfig.classOf(priority)]) {
            waiting += queue.size();
        }
        return waiting;
    }

    /** Fresh tasks waiting in {@code priority}'s class: what its depth bounds. */
    int waitingFresh(int priority) {
        ArrayDeque<Entry<T>>[] byClass = queues[SchedulingConfig.classOf(priority)];
        return byClass[FRESH].size() + byClass[FRESH_EXPENSIVE].size();
    }

    /** The highest class at or below {@code from} with a task a worker may take, or -1. */
    private int highestEligible(int from, long nowNanos, boolean laneFree) {
        for (int cls = from; cls < SchedulingConfig.CLASSES; cls++) {
            if (pick(cls, nowNanos, laneFree) >= 0) {
                return cls;
            }
        }
        return -1;
    }

    /**
     * Which sub-queue of class {@code cls} a worker takes from, or -1: an aged continuation first,
     * then fresh work, then a continuation; the oldest of each kind, expensive ones only while the
     * lane has room.
     */
    private int pick(int cls, long nowNanos, boolean laneFree) {
        ArrayDeque<Entry<T>>[] byClass = queues[cls];
        int aged = older(agedHead(byClass[CONTINUED], CONTINUED, nowNanos),
                laneFree ? agedHead(byClass[CONTINUED_EXPENSIVE], CONTINUED_EXPENSIVE, nowNanos) : -1, byClass);
        if (aged >= 0) {
            return aged;
        }
        int fresh = older(nonEmpty(byClass, FRESH), laneFree ? nonEmpty(byClass, FRESH_EXPENSIVE) : -1, byClass);
        if (fresh >= 0) {
            return fresh;
        }
        return older(nonEmpty(byClass, CONTINUED), laneFree ? nonEmpty(byClass, CONTINUED_EXPENSIVE) : -1, byClass);
    }

    private int agedHead(ArrayDeque<Entry<T>> queue, int sub, long nowNanos) {
        Entry<T> head = queue.peekFirst();
        return head != null && nowNanos - head.queuedNanos() >= agingNanos ? sub : -1;
    }

    private int nonEmpty(ArrayDeque<Entry<T>>[] byClass, int sub) {
        return byClass[sub].isEmpty() ? -1 : sub;
    }

    /** Of two sub-queues (-1: none), the one whose head waited longer; the first on a tie. */
    private int older(int a, int b, ArrayDeque<Entry<T>>[] byClass) {
        if (a < 0 || b < 0) {
            return a < 0 ? b : a;
        }
        return byClass[b].peekFirst().queuedNanos() - byClass[a].peekFirst().queuedNanos() < 0 ? b : a;
    }

    /** The class below {@code top} whose next task has waited longest (the higher class on a tie). */
    private int oldestBelow(int top, long nowNanos, boolean laneFree) {
        int oldest = -1;
        long oldestNanos = 0;
        for (int cls = top + 1; cls < SchedulingConfig.CLASSES; cls++) {
            int sub = pick(cls, nowNanos, laneFree);
            if (sub < 0) {
                continue;
            }
            long queuedNanos = queues[cls][sub].peekFirst().queuedNanos();
            if (oldest < 0 || queuedNanos - oldestNanos < 0) {
                oldest = cls;
                oldestNanos = queuedNanos;
            }
        }
        return oldest;
    }
}
