package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The scheduling policy of a leaf's workers, as pure code: one shallow bounded FIFO per scheduling
 * class, taken highest class first, with a starvation guard and expiry at dequeue. It decides
 * which task a free worker takes next; {@link SearchScheduler} holds it under a lock and runs what
 * it chooses.
 *
 * <ul>
 *   <li><b>Classes.</b> A worker takes the oldest task of the highest class that has one (0 is the
 *       highest); within a class, FIFO.
 *   <li><b>Shallow queues.</b> {@link #offer} refuses when the class's queue holds its depth, so the
 *       caller answers BUSY at once. {@link #requeue} (a sliced search's continuation, admitted
 *       when it arrived) is never refused: it goes to the back of its class.
 *   <li><b>Starvation guard.</b> While a lower class has work waiting behind a higher one, every
 *       {@code lowerClassEvery}-th dequeue takes the oldest waiting task of the lower classes (by
 *       when it was queued) instead.
 *   <li><b>Expiry.</b> A task whose deadline passed while it waited is handed back by
 *       {@link #poll} in its {@code expired} list instead of being chosen (the caller answers it
 *       EXPIRED without running it) and does not count as a turn. Continuations have no deadline
 *       here: they already ran, and answer what they found.
 * </ul>
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: the caller serializes every call. Time
 * comes only from the injected ticker.
 */
final class ClassQueues<T> {
    /** The deadline of work that has none. */
    static final long NO_DEADLINE = Long.MIN_VALUE;

    private record Entry<T>(T task, long queuedNanos, long deadlineNanos) {
        boolean expiredAt(long nowNanos) {
            return deadlineNanos != NO_DEADLINE && nowNanos - deadlineNanos >= 0;
        }
    }

    private final SchedulingConfig config;
    private final Ticker ticker;
    private final List<ArrayDeque<Entry<T>>> queues = new ArrayList<>();
    private int size;
    /** Dequeues in a row that took a higher class while a lower one waited. */
    private int passedOver;

    ClassQueues(SchedulingConfig config, Ticker ticker) {
        this.config = config;
        this.ticker = ticker;
        for (int i = 0; i < SchedulingConfig.CLASSES; i++) {
            queues.add(new ArrayDeque<>());
        }
    }

    /**
     * Queues a task of wire priority {@code priority} at the back of its class.
     *
     * @param deadlineNanos on the ticker, or {@link #NO_DEADLINE}
     * @return false, with nothing queued, when its class's queue is full
     */
    boolean offer(T task, int priority, long deadlineNanos) {
        int cls = SchedulingConfig.classOf(priority);
        ArrayDeque<Entry<T>> queue = queues.get(cls);
        if (queue.size() >= config.depth(cls)) {
            return false;
        }
        queue.addLast(new Entry<>(task, ticker.nanoTime(), deadlineNanos));
        size++;
        return true;
    }

    /** Queues a continuation at the back of its class, even when the class's queue is full. */
    void requeue(T continuation, int priority) {
        queues.get(SchedulingConfig.classOf(priority)).addLast(new Entry<>(continuation, ticker.nanoTime(), NO_DEADLINE));
        size++;
    }

    /** Takes a queued task out (a cancelled one); false if it is not queued. */
    boolean remove(T task, int priority) {
        boolean removed = queues.get(SchedulingConfig.classOf(priority)).removeIf(entry -> entry.task() == task);
        if (removed) {
            size--;
        }
        return removed;
    }

    /**
     * The task a free worker should run next, or null when nothing live waits.
     *
     * @param expired receives, in the order met, the tasks found expired on the way (no longer queued)
     */
    T poll(List<T> expired) {
        long nowNanos = ticker.nanoTime();
        while (size > 0) {
            int top = highestWaiting(0);
            int lower = highestWaiting(top + 1);
            boolean guardTurn = lower >= 0 && config.lowerClassEvery() > 0
                    && passedOver >= config.lowerClassEvery() - 1;
            int chosen = guardTurn ? oldestBelow(top) : top;
            Entry<T> entry = queues.get(chosen).pollFirst();
            size--;
            if (entry.expiredAt(nowNanos)) {
                expired.add(entry.task());
                continue;
            }
            passedOver = chosen == top && lower >= 0 ? passedOver + 1 : 0;
            return entry.task();
        }
        return null;
    }

    /** Whether a task of {@code priority}'s class or a higher one waits: what a running slice yields to. */
    boolean hasWaitingAtOrAbove(int priority) {
        if (size == 0) {
            return false;
        }
        int top = highestWaiting(0);
        return top >= 0 && top <= SchedulingConfig.classOf(priority);
    }

    /** Tasks waiting in all classes. */
    int size() {
        return size;
    }

    /** Tasks waiting in {@code priority}'s class. */
    int size(int priority) {
        return queues.get(SchedulingConfig.classOf(priority)).size();
    }

    /** The highest class at or below {@code from} with a task waiting, or -1. */
    private int highestWaiting(int from) {
        for (int i = from; i < queues.size(); i++) {
            if (!queues.get(i).isEmpty()) {
                return i;
            }
        }
        return -1;
    }

    /** The class below {@code top} whose head has waited longest (the higher class on a tie). */
    private int oldestBelow(int top) {
        int oldest = -1;
        long oldestNanos = 0;
        for (int i = top + 1; i < queues.size(); i++) {
            Entry<T> head = queues.get(i).peekFirst();
            if (head != null && (oldest < 0 || head.queuedNanos() - oldestNanos < 0)) {
                oldest = i;
                oldestNanos = head.queuedNanos();
            }
        }
        return oldest;
    }
}
