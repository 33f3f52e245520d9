package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The scheduling policy of a leaf's workers, as pure code: per scheduling class, shallow bounded
 * queues of fresh work and a sub-queue of continuations, in two pools (cheap work and the
 * expensive lane), taken highest class first, with a starvation guard, aging and expiry at
 * dequeue. It decides which task a free worker takes next; {@link SearchScheduler} holds it under
 * a lock and runs what it chooses.
 *
 * <ul>
 *   <li><b>Two pools.</b> Work known to be expensive (its estimated cost is past {@link
 *       SchedulingConfig#expensiveCost()}, or it used a whole slice on a cheap worker) waits in the
 *       <em>lane</em>; everything else is cheap. Each worker polls one pool: the leaf's search
 *       workers the cheap one, its lane workers the lane ({@link #poll(List, boolean)}), so no
 *       expensive task ever holds a worker that cheap work could use. With lanes off nothing is
 *       expensive and every worker polls the cheap pool.</li>
 *   <li><b>Classes.</b> A worker takes a task of the highest class that has one in its pool (0 is
 *       the highest).</li>
 *   <li><b>Shallow queues.</b> {@link #offer} refuses when the class's fresh work (of both pools)
 *       fills its depth, so the caller answers BUSY at once. The depth counts searches: a task
 *       that carries several partitions' searches ({@link SearchParts}) counts for each of them, in
 *       the depth and in {@link #size()}, until a worker takes it; it is admitted while its class
 *       has a place left, so it may fill the class past its depth by its searches but one.</li>
 *   <li><b>Cheap continuations</b> (with lanes off, a sliced search that used its slice and
 *       yielded, {@link #requeue}) go to a sub-queue below the fresh work of their class, as in a
 *       multi-level feedback queue: a task that ran a whole slice has shown it is long, and the fresh
 *       work may be short. A continuation that has waited {@link
 *       SchedulingConfig#continuationAging()} goes ahead of the fresh work of its class (aging), so a
 *       steady stream of fresh work cannot starve a long search.</li>
 *   <li><b>The lane runs one search after the other</b>: its continuations go <em>before</em> its
 *       fresh work, and a paused one keeps its place at their front ({@link #requeueFirst}), so a
 *       lane worker resumes the search it paused rather than starting or resuming another.
 *       Expensive searches taking turns slice by slice measured 1.8 times the CPU of the same
 *       searches one after the other (each resumption found the caches full of another search's
 *       postings), and each finished later than it would have in turn.</li>
 *   <li>Continuations were admitted when they arrived, so they are never refused and do not count
 *       against the depth fresh requests see: parked expensive work cannot make cheap requests
 *       BUSY.</li>
 *   <li><b>Starvation guard.</b> While a lower class has work in a pool behind a higher one, every
 *       {@code lowerClassEvery}-th dequeue from that pool takes the oldest such task of the lower
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

    /** Sub-queues of a class: fresh work and continuations, of each pool. */
    private static final int FRESH = 0;
    private static final int CONTINUED = 1;
    private static final int FRESH_EXPENSIVE = 2;
    private static final int CONTINUED_EXPENSIVE = 3;
    private static final int SUBQUEUES = 4;
    /** Index of a pool, in {@link #passedOver}. */
    private static final int CHEAP_POOL = 0;
    private static final int LANE_POOL = 1;

    private record Entry<T>(T task, long queuedNanos, long deadlineNanos, int searches) {
        boolean expiredAt(long nowNanos) {
            return deadlineNanos != NO_DEADLINE && nowNanos - deadlineNanos >= 0;
        }
    }

    private final SchedulingConfig config;
    private final Ticker ticker;
    private final long agingNanos;
    /** By class, then sub-queue. */
    @SuppressWarnings("unchecked")
    private final ArrayDeque<Entry<T>>[][] queues = new ArrayDeque[SchedulingConfig.CLASSES][SUBQUEUES];
    /**
     * Searches waiting (a task of several counts for each), in all classes and sub-queues; every
     * entry carries at least one, so it is 0 exactly when no entry waits.
     */
    private int size;
    /** By class: searches waiting as fresh work, both pools (what the depth bounds). */
    private final int[] freshSearches = new int[SchedulingConfig.CLASSES];
    /** Per pool: dequeues in a row that took a higher class while a lower one waited. */
    private final int[] passedOver = new int[2];

    ClassQueues(SchedulingConfig config, Ticker ticker) {
        this.config = config;
        this.ticker = ticker;
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
     * @param expensive     whether it waits in the expensive lane
     * @return false, with nothing queued, when its class's fresh work fills the class's depth
     */
    boolean offer(T task, int priority, long deadlineNanos, boolean expensive) {
        return offer(task, priority, deadlineNanos, expensive, 1);
    }

    /**
     * Queues fresh work that carries {@code searches} searches (several partitions' parts of one
     * request): admitted while its class has a place, it then counts for each of its searches.
     *
     * @return false, with nothing queued, when its class's fresh work fills the class's depth
     */
    boolean offer(T task, int priority, long deadlineNanos, boolean expensive, int searches) {
        if (searches < 1) {
            throw new IllegalArgumentException("searches: " + searches + " (expected: >= 1)");
        }
        int cls = SchedulingConfig.classOf(priority);
        if (waitingFresh(priority) >= config.depth(cls)) {
            return false;
        }
        queues[cls][expensive ? FRESH_EXPENSIVE : FRESH].addLast(new Entry<>(task, ticker.nanoTime(), deadlineNanos,
                searches));
        added(cls, true, searches);
        return true;
    }

    private void added(int cls, boolean fresh, int searches) {
        size += searches;
        if (fresh) {
            freshSearches[cls] += searches;
        }
    }

    private void taken(int cls, int sub, Entry<T> entry) {
        size -= entry.searches();
        if (sub == FRESH || sub == FRESH_EXPENSIVE) {
            freshSearches[cls] -= entry.searches();
        }
    }

    /** Queues a cheap continuation (see {@link #requeue(Object, int, boolean)}). */
    void requeue(T continuation, int priority) {
        requeue(continuation, priority, false);
    }

    /**
     * Queues a continuation at the back of its class's continuation sub-queue of its pool, even when
     * the class is full: it was admitted when it arrived.
     *
     * @param expensive whether it waits in the expensive lane
     */
    void requeue(T continuation, int priority, boolean expensive) {
        continuations(priority, expensive).addLast(new Entry<>(continuation, ticker.nanoTime(), NO_DEADLINE, 1));
        added(SchedulingConfig.classOf(priority), false, 1);
    }

    /**
     * Queues a paused continuation of the lane at the front of its class's lane continuations: it
     * keeps its place, so the lane's next free worker resumes it before any other (see the class
     * comment: lane work runs one search after the other).
     */
    void requeueFirst(T continuation, int priority) {
        continuations(priority, true).addFirst(new Entry<>(continuation, ticker.nanoTime(), NO_DEADLINE, 1));
        added(SchedulingConfig.classOf(priority), false, 1);
    }

    private ArrayDeque<Entry<T>> continuations(int priority, boolean expensive) {
        return queues[SchedulingConfig.classOf(priority)][expensive ? CONTINUED_EXPENSIVE : CONTINUED];
    }

    /** Takes a queued task or continuation out (a cancelled one); false if it is not queued. */
    boolean remove(T task, int priority) {
        int cls = SchedulingConfig.classOf(priority);
        for (int sub = 0; sub < SUBQUEUES; sub++) {
            for (var it = queues[cls][sub].iterator(); it.hasNext(); ) {
                Entry<T> entry = it.next();
                if (entry.task() == task) {
                    it.remove();
                    taken(cls, sub, entry);
                    return true;
                }
            }
        }
        return false;
    }

    /** The cheap task a free search worker should run next (see {@link #poll(List, boolean)}). */
    T poll(List<T> expired) {
        return poll(expired, false);
    }

    /**
     * The task a free worker of one pool should run next, or null when nothing of that pool waits.
     *
     * @param expired receives, in the order met, the tasks found expired on the way (no longer queued)
     * @param lane    the worker is one of the expensive lane's, not a search worker
     */
    T poll(List<T> expired, boolean lane) {
        long nowNanos = ticker.nanoTime();
        int pool = lane ? LANE_POOL : CHEAP_POOL;
        while (size > 0) {
            int top = highestEligible(0, nowNanos, lane);
            if (top < 0) {
                return null;
            }
            int lower = highestEligible(top + 1, nowNanos, lane);
            boolean guardTurn = lower >= 0 && config.lowerClassEvery() > 0
                    && passedOver[pool] >= config.lowerClassEvery() - 1;
            int chosen = guardTurn ? oldestBelow(top, nowNanos, lane) : top;
            int sub = pick(chosen, nowNanos, lane);
            Entry<T> entry = queues[chosen][sub].pollFirst();
            taken(chosen, sub, entry);
            if (entry.expiredAt(nowNanos)) {
                expired.add(entry.task());
                continue;
            }
            passedOver[pool] = chosen == top && lower >= 0 ? passedOver[pool] + 1 : 0;
            return entry.task();
        }
        return null;
    }

    /**
     * Whether cheap work waits in {@code priority}'s class or a higher one: what a running cheap
     * slice yields to. (Lower classes would not run first anyway: a worker takes the highest class
     * waiting.)
     */
    boolean hasWaitingAtOrAbove(int priority) {
        int top = highestWaiting(false);
        return top >= 0 && top <= SchedulingConfig.classOf(priority);
    }

    /** The highest class with work of the pool waiting (0 the highest), or -1 when none waits. */
    int highestWaiting(boolean lane) {
        return size == 0 ? -1 : highestEligible(0, ticker.nanoTime(), lane);
    }

    /** Searches waiting (tasks and continuations; a task of several parts counts for each), all classes and pools. */
    int size() {
        return size;
    }

    /** Searches waiting in {@code priority}'s class (tasks and continuations), both pools. */
    int size(int priority) {
        int waiting = 0;
        for (ArrayDeque<Entry<T>> queue : queues[SchedulingConfig.classOf(priority)]) {
            for (Entry<T> entry : queue) {
                waiting += entry.searches();
            }
        }
        return waiting;
    }

    /** Fresh searches waiting in {@code priority}'s class, both pools: what its depth bounds. */
    int waitingFresh(int priority) {
        return freshSearches[SchedulingConfig.classOf(priority)];
    }

    /** The highest class at or below {@code from} with a task of the pool, or -1. */
    private int highestEligible(int from, long nowNanos, boolean lane) {
        for (int cls = from; cls < SchedulingConfig.CLASSES; cls++) {
            if (pick(cls, nowNanos, lane) >= 0) {
                return cls;
            }
        }
        return -1;
    }

    /**
     * Which sub-queue of class {@code cls} a worker of the pool takes from, or -1. Cheap work: an
     * aged continuation first, then fresh work, then a continuation. The lane: a continuation
     * first, then fresh work.
     */
    private int pick(int cls, long nowNanos, boolean lane) {
        ArrayDeque<Entry<T>>[] byClass = queues[cls];
        if (lane) {
            return !byClass[CONTINUED_EXPENSIVE].isEmpty() ? CONTINUED_EXPENSIVE
                    : !byClass[FRESH_EXPENSIVE].isEmpty() ? FRESH_EXPENSIVE : -1;
        }
        Entry<T> oldestContinued = byClass[CONTINUED].peekFirst();
        if (oldestContinued != null && nowNanos - oldestContinued.queuedNanos() >= agingNanos) {
            return CONTINUED;
        }
        if (!byClass[FRESH].isEmpty()) {
            return FRESH;
        }
        return oldestContinued != null ? CONTINUED : -1;
    }

    /** The class below {@code top} whose next task of the pool has waited longest (the higher class on a tie). */
    private int oldestBelow(int top, long nowNanos, boolean lane) {
        int oldest = -1;
        long oldestNanos = 0;
        for (int cls = top + 1; cls < SchedulingConfig.CLASSES; cls++) {
            int sub = pick(cls, nowNanos, lane);
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
