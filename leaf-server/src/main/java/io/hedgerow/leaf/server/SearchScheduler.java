package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Priority;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The leaf's worker pool: one bounded queue shared by all workers, so a request waits for the
 * first free worker, whatever connection it came on (see "Tales of the Tail": per-connection
 * queues skew load and lengthen the tail). A full queue refuses at once, so the root can try
 * another replica instead of waiting behind a backlog.
 *
 * <p>Requests carry a scheduling class ({@link Priority}: interactive, backup, batch, shadow). A
 * worker takes the oldest request of the highest class waiting, so a leaf serves its own primaries
 * before other leaves' backups: a backup sent to hedge a slow replica must not slow down the
 * primaries of the leaf it lands on. Within a class the queue is FIFO. The capacity is shared.
 * A sliced search that yields ({@code --slice}) {@link #requeue requeues} its continuation at the
 * back of its class, behind the work that was waiting.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #trySubmit} is non-blocking (it takes a lock held
 * only for a few field updates, as {@code ArrayBlockingQueue} does) and may be called from event
 * loops. Tasks run on {@code workers} platform threads created once. After {@link #close()}
 * nothing new is accepted and workers stop after their current task.
 */
final class SearchScheduler implements AutoCloseable {
    private static final int CLASSES = Priority.values().length - 1; // less UNRECOGNIZED

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    /** One FIFO per scheduling class, highest class first; guarded by {@link #lock}. */
    private final List<ArrayDeque<Runnable>> queues = new ArrayList<>();
    private final int capacity;
    /** Tasks in all queues; guarded by {@link #lock}. */
    private int queued;
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean closed;

    SearchScheduler(int workers, int queueCapacity) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity: " + queueCapacity + " (expected: >= 1)");
        }
        this.capacity = queueCapacity;
        for (int i = 0; i < CLASSES; i++) {
            queues.add(new ArrayDeque<>());
        }
        for (int i = 0; i < workers; i++) {
            Thread worker = new Thread(this::work, "leaf-worker-" + i);
            worker.setDaemon(true);
            this.workers.add(worker);
            worker.start();
        }
    }

    /** Queues an interactive task; false when the queue is full or the scheduler is closed. */
    boolean trySubmit(Runnable task) {
        return trySubmit(task, Priority.INTERACTIVE_VALUE);
    }

    /**
     * Queues a task of scheduling class {@code priority} (a {@link Priority} number; unknown ones
     * count as the lowest class); false when the queue is full or the scheduler is closed.
     */
    boolean trySubmit(Runnable task, int priority) {
        if (closed) {
            return false;
        }
        ArrayDeque<Runnable> queue = queues.get(classOf(priority));
        lock.lock();
        try {
            if (queued >= capacity) {
                return false;
            }
            queue.addLast(task);
            queued++;
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
     * capacity): refusing it would leave a request that started without an answer.
     *
     * @return false only when the scheduler is closed
     */
    boolean requeue(Runnable continuation, int priority) {
        if (closed) {
            return false;
        }
        ArrayDeque<Runnable> queue = queues.get(classOf(priority));
        lock.lock();
        try {
            queue.addLast(continuation);
            queued++;
            notEmpty.signal();
            return true;
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
        int lowest = classOf(priority);
        lock.lock();
        try {
            if (queued == 0) {
                return false;
            }
            for (int i = 0; i <= lowest; i++) {
                if (!queues.get(i).isEmpty()) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    private static int classOf(int priority) {
        return priority >= 0 && priority < CLASSES ? priority : CLASSES - 1;
    }

    /**
     * Wakes every worker held by an injected fault, so it re-reads the fault (after a fault was
     * changed or cleared). A worker waiting for the queue ignores the wake-up.
     */
    void wakeWorkers() {
        workers.forEach(LockSupport::unpark);
    }

    int queued() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }

    private Runnable take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (queued == 0) {
                notEmpty.await();
            }
            for (ArrayDeque<Runnable> queue : queues) {
                Runnable task = queue.pollFirst();
                if (task != null) {
                    queued--;
                    return task;
                }
            }
            throw new IllegalStateException("queued: " + queued + " (expected: 0 when every class is empty)");
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        while (!closed) {
            Runnable task;
            try {
                task = take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                // A task answers its own errors; reaching here is a bug, but the worker lives on.
                System.getLogger(SearchScheduler.class.getName())
                        .log(System.Logger.Level.ERROR, "search task failed", e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        workers.forEach(Thread::interrupt);
    }
}
