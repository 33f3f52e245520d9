package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.util.List;

/**
 * The leaf's queue policy, {@link ClassQueues}, for code outside the leaf: the simulator's
 * modelled leaves ({@code io.hedgerow.root.sim}) queue and pick their work with this very class,
 * so what they do is what a leaf's workers do (classes highest first, shallow queues that refuse
 * when full, the starvation guard, expiry at dequeue), not a model of it. Only delegates.
 *
 * <p><b>Assumptions and guarantees.</b> As {@link ClassQueues}: not thread-safe, time from the
 * injected ticker.
 */
public final class LeafQueues<T> {
    /** The deadline of work that has none. */
    public static final long NO_DEADLINE = ClassQueues.NO_DEADLINE;

    private final ClassQueues<T> queues;

    public LeafQueues(SchedulingConfig config, Ticker ticker) {
        this.queues = new ClassQueues<>(config, ticker);
    }

    /** Queues a task of wire priority {@code priority}; false, with nothing queued, when its class is full. */
    public boolean offer(T task, int priority, long deadlineNanos) {
        return queues.offer(task, priority, deadlineNanos);
    }

    /** Takes a queued task out (a cancelled one); false if it is not queued. */
    public boolean remove(T task, int priority) {
        return queues.remove(task, priority);
    }

    /** The task a free worker runs next, or null; tasks found expired on the way go to {@code expired}. */
    public T poll(List<T> expired) {
        return queues.poll(expired);
    }

    /** Tasks waiting in all classes. */
    public int size() {
        return queues.size();
    }
}
