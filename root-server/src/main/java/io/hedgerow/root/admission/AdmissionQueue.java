package io.hedgerow.root.admission;

import io.hedgerow.api.QueryPriority;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The searches waiting at the root for a place under the concurrency limit, first in first out,
 * interactive ones apart from batch ones, and the rules that refuse an arrival instead of queueing
 * it: the queue is full ({@code capacity}, about one per open connection; batch searches get
 * {@code batchShare} of it, so they are shed first), the search's deadline would pass before its
 * turn (the expected wait, {@link #estimatedWaitNanos}, is the longer of the last search's recent
 * wait and the oldest waiting one's age), or the queue delay kept growing and the queue is now held short
 * ({@link QueueDelayRule}). Every
 * refusal is decided on arrival, so it is immediate; nothing queued is refused later.
 *
 * <p>When a place frees up, interactive searches start before batch ones ({@link #poll}); each
 * search's time in the queue feeds the delay rule and the estimate.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: {@link AdmissionControl} calls it under its
 * lock. Pure: no Netty type, no clock (times are arguments, readings of one ticker), no thread.
 *
 * @param <T> what a waiting search carries (its callback)
 */
final class AdmissionQueue<T> {
    /** One waiting search. Identity matters: {@link #remove} takes the entry {@link #offer} was given. */
    static final class Entry<T> {
        private final T waiter;
        private final QueryPriority priority;
        private final long deadlineNanos;
        private long enqueuedNanos;

        /** @param deadlineNanos when the search's time is up, on the queue's ticker */
        Entry(T waiter, QueryPriority priority, long deadlineNanos) {
            this.waiter = Objects.requireNonNull(waiter, "waiter");
            this.priority = Objects.requireNonNull(priority, "priority");
            this.deadlineNanos = deadlineNanos;
        }

        T waiter() {
            return waiter;
        }

        QueryPriority priority() {
            return priority;
        }

        long enqueuedNanos() {
            return enqueuedNanos;
        }
    }

    private final ArrayDeque<Entry<T>> interactive = new ArrayDeque<>();
    private final ArrayDeque<Entry<T>> batch = new ArrayDeque<>();
    private final double batchShare;
    private final QueueDelayRule delayRule;
    private final long intervalNanos;
    /** Searches running now: with the queue's, the searches outstanding that the delay rule watches. */
    private final IntSupplier running;
    /** The queue delay of the last search to leave the queue, and when it left. */
    private long lastWaitNanos;
    private long lastWaitAtNanos;

    /** @param running how many searches are running now (admitted and not yet ended) */
    AdmissionQueue(AdmissionSettings settings, IntSupplier running) {
        this.running = Objects.requireNonNull(running, "running");
        this.batchShare = settings.batchShare();
        this.intervalNanos = settings.queueInterval().toNanos();
        this.delayRule = new QueueDelayRule(settings.queueTarget().toNanos(), intervalNanos,
                settings.queueTolerance().toNanos());
    }

    /**
     * Queues {@code entry} or says why not.
     *
     * @param capacity searches the queue may hold now
     * @return null when queued; the reason otherwise (the entry is then not queued)
     */
    Refusal offer(Entry<T> entry, int capacity, long nowNanos) {
        Entry<T> oldest = oldest();
        long oldestWait = oldest == null ? 0 : nowNanos - oldest.enqueuedNanos;
        if (oldest != null) {
            // The oldest waiting search has waited at least this long: a lower bound of its delay.
            delayRule.observe(oldestWait, nowNanos, outstanding(), false);
        }
        boolean isBatch = entry.priority == QueryPriority.BATCH;
        int room = isBatch ? (int) Math.floor(capacity * batchShare) : capacity;
        if ((isBatch ? batch.size() : size()) >= room) {
            return Refusal.QUEUE_FULL;
        }
        if (entry.deadlineNanos - nowNanos <= estimatedWaitNanos(nowNanos)) {
            return Refusal.DEADLINE;
        }
        if (delayRule.refuses(oldestWait, nowNanos)) {
            return Refusal.STANDING_DELAY;
        }
        entry.enqueuedNanos = nowNanos;
        (isBatch ? batch : interactive).addLast(entry);
        return null;
    }

    /**
     * The next search to start, interactive first: the head of a queue whose class {@code reserve}
     * grants a place to (it takes the place when it says yes, so it is asked only for the entry
     * returned). Null when none may start.
     */
    Entry<T> poll(Predicate<QueryPriority> reserve, long nowNanos) {
        Entry<T> next = null;
        if (!interactive.isEmpty() && reserve.test(QueryPriority.INTERACTIVE)) {
            next = interactive.pollFirst();
        } else if (!batch.isEmpty() && reserve.test(QueryPriority.BATCH)) {
            next = batch.pollFirst();
        }
        if (next == null) {
            return null;
        }
        long waited = nowNanos - next.enqueuedNanos;
        lastWaitNanos = waited;
        lastWaitAtNanos = nowNanos;
        delayRule.observe(waited, nowNanos, outstanding(), true);
        if (isEmpty()) {
            emptied();
        }
        return next;
    }

    /** Takes a waiting search out (its client went away); false when it is not waiting. */
    boolean remove(Entry<T> entry) {
        boolean removed = (entry.priority == QueryPriority.BATCH ? batch : interactive).remove(entry);
        if (removed && isEmpty()) {
            emptied();
        }
        return removed;
    }

    private void emptied() {
        delayRule.queueEmptied();
    }

    /**
     * How long a search arriving now to wait is expected to: the longer of the oldest waiting one's
     * age and the last search's wait, if that search left the queue within the last interval (an
     * older figure says nothing about now).
     */
    long estimatedWaitNanos(long nowNanos) {
        Entry<T> oldest = oldest();
        long age = oldest == null ? 0 : nowNanos - oldest.enqueuedNanos;
        return nowNanos - lastWaitAtNanos <= intervalNanos ? Math.max(age, lastWaitNanos) : age;
    }

    /** The queue delay of the last search to leave the queue. */
    long lastWaitNanos() {
        return lastWaitNanos;
    }

    private Entry<T> oldest() {
        Entry<T> a = interactive.peekFirst();
        Entry<T> b = batch.peekFirst();
        if (a == null) {
            return b;
        }
        return b == null || a.enqueuedNanos <= b.enqueuedNanos ? a : b;
    }

    private int outstanding() {
        return size() + running.getAsInt();
    }

    int size() {
        return interactive.size() + batch.size();
    }

    boolean isEmpty() {
        return interactive.isEmpty() && batch.isEmpty();
    }

    /** True while the delay rule refuses arrivals. */
    boolean shedding() {
        return delayRule.shedding();
    }
}
