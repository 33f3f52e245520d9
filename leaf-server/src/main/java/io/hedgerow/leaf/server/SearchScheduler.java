package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Priority;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The leaf's worker pool: one queue per scheduling class shared by all workers, so a request waits
 * for the first free worker, whatever connection it came on (see "Tales of the Tail": per-connection
 * queues skew load and lengthen the tail). Which task a free worker takes is {@link ClassQueues}'s
 * decision: highest class first, FIFO within a class, a starvation guard for lower classes, and
 * expired work dropped at dequeue (answered EXPIRED without running). Each class's queue is shallow
 * and bounded: a full one refuses at once, so the root can try another replica instead of waiting
 * behind a backlog. A cancelled task leaves its queue at once ({@link #remove}).
 *
 * <p>Requests carry a scheduling class ({@link Priority}: interactive, backup, batch, shadow), so a
 * leaf serves its own primaries before other leaves' backups: a backup sent to hedge a slow replica
 * must not slow down the primaries of the leaf it lands on. A sliced search that yields
 * ({@code --slice}) {@link #requeue requeues} its continuation at the back of its class, behind the
 * work that was waiting.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #trySubmit}, {@link #requeue} and {@link #remove}
 * are non-blocking (they take a lock held only for a few field updates, as
 * {@code ArrayBlockingQueue} does) and may be called from event loops. Tasks run on {@code workers}
 * platform threads created once. After {@link #close()} nothing new is accepted and workers stop
 * after their current task.
 */
final class SearchScheduler implements AutoCloseable {
    /** A queued task, and what answers it if its deadline passes while it waits. */
    private record Queued(Runnable work, Runnable onExpiry) {
    }

    private static final Runnable NOTHING = () -> { };

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    /** Guarded by {@link #lock}. */
    private final ClassQueues<Queued> queues;
    /** Queued entries of tasks, so a cancel can take its task out; guarded by {@link #lock}. */
    private final IdentityHashMap<Runnable, Queued> entries = new IdentityHashMap<>();
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean closed;

    SearchScheduler(int workers, SchedulingConfig config, Ticker ticker) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        this.queues = new ClassQueues<>(config, ticker);
        for (int i = 0; i < workers; i++) {
            Thread worker = new Thread(this::work, "leaf-worker-" + i);
            worker.setDaemon(true);
            this.workers.add(worker);
            worker.start();
        }
    }

    /** Queues an interactive task without a deadline; false when its queue is full or the scheduler is closed. */
    boolean trySubmit(Runnable task) {
        return trySubmit(task, Priority.INTERACTIVE_VALUE);
    }

    /** Queues a task without a deadline (see {@link #trySubmit(Runnable, int, long, Runnable)}). */
    boolean trySubmit(Runnable task, int priority) {
        return trySubmit(task, priority, ClassQueues.NO_DEADLINE, NOTHING);
    }

    /**
     * Queues a task of scheduling class {@code priority} (a {@link Priority} number; unknown ones
     * count as the lowest class).
     *
     * @param deadlineNanos on the scheduler's ticker, or {@link ClassQueues#NO_DEADLINE}
     * @param onExpiry      runs instead of the task, on a worker, if the deadline passes while it waits
     * @return false when its class's queue is full or the scheduler is closed
     */
    boolean trySubmit(Runnable task, int priority, long deadlineNanos, Runnable onExpiry) {
        if (closed) {
            return false;
        }
        Queued queued = new Queued(task, onExpiry);
        lock.lock();
        try {
            if (!queues.offer(queued, priority, deadlineNanos)) {
                return false;
            }
            entries.put(task, queued);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts the continuation of a task that already ran a slice at the back of its class's queue,
     * so the work waiting ahead of it runs first. It was admitted when it arrived, so it is not
     * refused for a full queue (the queue may then hold one more task per worker than its
     * depth): refusing it would leave a request that started without an answer.
     *
     * @return false only when the scheduler is closed
     */
    boolean requeue(Runnable continuation, int priority) {
        if (closed) {
            return false;
        }
        lock.lock();
        try {
            Queued queued = new Queued(continuation, NOTHING);
            queues.requeue(queued, priority);
            entries.put(continuation, queued);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes a queued task or continuation out of its queue (it was cancelled); false if it was not queued. */
    boolean remove(Runnable task, int priority) {
        lock.lock();
        try {
            Queued queued = entries.remove(task);
            return queued != null && queues.remove(queued, priority);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a task of class {@code priority} or a higher one is waiting: what a slice of a
     * running search should yield to. (Lower classes would not run first anyway: a worker takes
     * the highest class waiting.)
     */
    boolean hasWaitingAtOrAbove(int priority) {
        lock.lock();
        try {
            return queues.hasWaitingAtOrAbove(priority);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Wakes every worker held by an injected fault, so it re-reads the fault (after a fault was
     * changed or cleared). A worker waiting for the queue ignores the wake-up.
     */
    void wakeWorkers() {
        workers.forEach(LockSupport::unpark);
    }

    /** Tasks and continuations waiting in every class. */
    int queued() {
        lock.lock();
        try {
            return queues.size();
        } finally {
            lock.unlock();
        }
    }

    /** The next live task; the expired ones met on the way go to {@code expired}. */
    private Queued take(List<Queued> expired) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                Queued next = queues.poll(expired);
                expired.forEach(queued -> entries.remove(queued.work()));
                if (next != null) {
                    entries.remove(next.work());
                    return next;
                }
                if (!expired.isEmpty()) {
                    return null; // answer those first, outside the lock
                }
                notEmpty.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        List<Queued> expired = new ArrayList<>();
        while (!closed) {
            Queued next;
            try {
                next = take(expired);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (Queued queued : expired) {
                runSafely(queued.onExpiry());
            }
            expired.clear();
            if (next != null) {
                runSafely(next.work());
            }
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            // A task answers its own errors; reaching here is a bug, but the worker lives on.
            System.getLogger(SearchScheduler.class.getName())
                    .log(System.Logger.Level.ERROR, "search task failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        workers.forEach(Thread::interrupt);
    }
}
