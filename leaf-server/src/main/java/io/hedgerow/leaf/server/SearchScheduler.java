package io.hedgerow.leaf.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The leaf's worker pool: one bounded FIFO queue shared by all workers, so a request waits for the
 * first free worker, whatever connection it came on (see "Tales of the Tail": per-connection
 * queues skew load and lengthen the tail). A full queue refuses at once, so the root can try
 * another replica instead of waiting behind a backlog.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #trySubmit} is non-blocking and may be called from
 * event loops. Tasks run in submission order on {@code workers} platform threads created once.
 * After {@link #close()} nothing new is accepted and workers stop after their current task.
 */
final class SearchScheduler implements AutoCloseable {
    private final BlockingQueue<Runnable> queue;
    private final List<Thread> workers = new ArrayList<>();
    private volatile boolean closed;

    SearchScheduler(int workers, int queueCapacity) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity: " + queueCapacity + " (expected: >= 1)");
        }
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        for (int i = 0; i < workers; i++) {
            Thread worker = new Thread(this::work, "leaf-worker-" + i);
            worker.setDaemon(true);
            this.workers.add(worker);
            worker.start();
        }
    }

    /** Queues a task; false when the queue is full or the scheduler is closed. */
    boolean trySubmit(Runnable task) {
        return !closed && queue.offer(task);
    }

    /**
     * Wakes every worker held by an injected fault, so it re-reads the fault (after a stall was
     * changed or cleared). A worker waiting for the queue ignores the wake-up.
     */
    void wakeWorkers() {
        workers.forEach(LockSupport::unpark);
    }

    int queued() {
        return queue.size();
    }

    private void work() {
        while (!closed) {
            Runnable task;
            try {
                task = queue.take();
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
