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
 * The leaf's worker pool: queues per scheduling class shared by all workers, so a request waits
 * for the first free worker, whatever connection it came on (see "Tales of the Tail": per-connection
 * queues skew load and lengthen the tail). Which task a free worker takes is {@link ClassQueues}'s
 * decision: highest class first, fresh work before continuations within a class (with aging), a
 * starvation guard for lower classes, expired work dropped at dequeue (answered EXPIRED without
 * running), and at most {@code workers - 1} expensive searches at once. Each class's queue of fresh
 * work is shallow and bounded: a full one refuses at once, so the root can try another replica
 * instead of waiting behind a backlog. A cancelled task leaves its queue at once ({@link #remove}).
 *
 * <p>Requests carry a scheduling class ({@link Priority}: interactive, backup, batch, shadow), so a
 * leaf serves its own primaries before other leaves' backups: a backup sent to hedge a slow replica
 * must not slow down the primaries of the leaf it lands on. A sliced search that yields
 * ({@code --slice}) {@link #requeue requeues} its continuation below the fresh work of its class.
 *
 * <p><b>Lanes.</b> With lanes on ({@link SchedulingConfig#lanes()}) the pool runs at least two
 * workers and the expensive lane takes at most all but one of them, so cheap work always finds a
 * worker that no expensive search can take. A search is expensive when its estimated cost is past
 * the threshold: known on arrival from the root's hint ({@link #trySubmit(LeafTask, int, long,
 * Runnable)}), or estimated by the worker that took it, which then {@link #enterLane enters the
 * lane} or, when it is full, parks the search as an expensive continuation. A worker's place in the
 * lane lasts until the slice it runs ends.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #trySubmit}, {@link #requeue} and {@link #remove}
 * are non-blocking (they take a lock held only for a few field updates, as
 * {@code ArrayBlockingQueue} does) and may be called from event loops. Tasks run on platform threads
 * created once. {@link #enterLane} and {@link #hasWaitingAtOrAbove} answer for the calling worker.
 * After {@link #close()} nothing new is accepted and workers stop after their current task.
 */
final class SearchScheduler implements AutoCloseable {
    /** A queued task, what answers it if its deadline passes while it waits, and whether it is expensive. */
    private record Queued(Runnable work, Runnable onExpiry, boolean expensive) {
    }

    /** A worker's own state: whether the slice it runs holds a place in the expensive lane. */
    private static final class Worker {
        boolean holdsLane;
    }

    private static final Runnable NOTHING = () -> { };

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final SchedulingConfig config;
    /** Guarded by {@link #lock}. */
    private final ClassQueues<Queued> queues;
    /** Queued entries of tasks, so a cancel can take its task out; guarded by {@link #lock}. */
    private final IdentityHashMap<Runnable, Queued> entries = new IdentityHashMap<>();
    private final List<Thread> workers = new ArrayList<>();
    private final ThreadLocal<Worker> currentWorker = new ThreadLocal<>();
    private final Ticker workClock;
    private volatile boolean closed;

    /** Slices measured on each worker's thread CPU time. */
    SearchScheduler(int workers, SchedulingConfig config, Ticker ticker) {
        this(workers, config, ticker, ThreadCpuClock.orWallClock());
    }

    /**
     * @param workers   search threads; at least two with lanes on
     * @param ticker    the clock of deadlines, queueing and aging
     * @param workClock what a slice's budget is measured on, read on the worker that runs the slice
     */
    SearchScheduler(int workers, SchedulingConfig config, Ticker ticker, Ticker workClock) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        this.config = config;
        this.workClock = workClock;
        int threads = config.lanes() ? Math.max(2, workers) : workers;
        this.queues = new ClassQueues<>(config, ticker,
                config.lanes() ? SchedulingConfig.laneWorkers(threads) : ClassQueues.UNLIMITED_LANE);
        for (int i = 0; i < threads; i++) {
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
     * count as the lowest class) as cheap work.
     *
     * @param deadlineNanos on the scheduler's ticker, or {@link ClassQueues#NO_DEADLINE}
     * @param onExpiry      runs instead of the task, on a worker, if the deadline passes while it waits
     * @return false when its class's queue is full or the scheduler is closed
     */
    boolean trySubmit(Runnable task, int priority, long deadlineNanos, Runnable onExpiry) {
        return offer(task, priority, deadlineNanos, onExpiry, false);
    }

    /**
     * Queues a leaf's request: in the expensive lane at once when the root's hint says it is
     * expensive ({@link LeafTask#costHint()}), as cheap work otherwise (its worker estimates it).
     */
    boolean trySubmit(LeafTask task, int priority, long deadlineNanos, Runnable onExpiry) {
        return offer(task, priority, deadlineNanos, onExpiry, config.isExpensive(task.costHint()));
    }

    private boolean offer(Runnable task, int priority, long deadlineNanos, Runnable onExpiry, boolean expensive) {
        if (closed) {
            return false;
        }
        Queued queued = new Queued(task, onExpiry, expensive);
        lock.lock();
        try {
            if (!queues.offer(queued, priority, deadlineNanos, expensive)) {
                return false;
            }
            entries.put(task, queued);
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Puts a cheap continuation back (see {@link #requeue(Runnable, int, boolean)}). */
    boolean requeue(Runnable continuation, int priority) {
        return requeue(continuation, priority, false);
    }

    /**
     * Puts the continuation of a task that already ran a slice in its class's continuation
     * sub-queue, behind the fresh work of its class. It was admitted when it arrived, so it is not
     * refused for a full queue and does not count against the depth: refusing it would leave a
     * request that started without an answer.
     *
     * @param expensive whether it runs in the expensive lane when taken again
     * @return false only when the scheduler is closed
     */
    boolean requeue(Runnable continuation, int priority, boolean expensive) {
        if (closed) {
            return false;
        }
        lock.lock();
        try {
            Queued queued = new Queued(continuation, NOTHING, expensive);
            queues.requeue(queued, priority, expensive);
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
     * The calling worker's search turned out expensive: it takes a place in the expensive lane for
     * the rest of its slice, if the lane has room (or it holds one already). False: the lane is full,
     * and the search should park as an expensive continuation. Always true with lanes off, and on a
     * thread that is not one of the workers.
     */
    boolean enterLane() {
        Worker worker = currentWorker.get();
        if (!config.lanes() || worker == null || worker.holdsLane) {
            return true;
        }
        lock.lock();
        try {
            worker.holdsLane = queues.tryEnterLane();
            return worker.holdsLane;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether a task a worker could take is waiting in class {@code priority} or a higher one: what
     * a slice of a running search should yield to. (Lower classes would not run first anyway: a
     * worker takes the highest class waiting.) An expensive search asking counts its own place in
     * the lane as free, since yielding frees it.
     */
    boolean hasWaitingAtOrAbove(int priority) {
        Worker worker = currentWorker.get();
        lock.lock();
        try {
            return queues.hasWaitingAtOrAbove(priority, worker != null && worker.holdsLane);
        } finally {
            lock.unlock();
        }
    }

    /** What each worker's slices are measured on; read it on the worker that runs the slice. */
    Ticker workClock() {
        return workClock;
    }

    /** The lanes, the threshold and the aging. */
    SchedulingConfig config() {
        return config;
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

    /** Search threads (at least two with lanes on). */
    int workers() {
        return workers.size();
    }

    /** The next live task; the expired ones met on the way go to {@code expired}. */
    private Queued take(Worker worker, List<Queued> expired) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (true) {
                Queued next = queues.poll(expired);
                expired.forEach(queued -> entries.remove(queued.work()));
                if (next != null) {
                    entries.remove(next.work());
                    worker.holdsLane = next.expensive(); // the queues counted it in the lane
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

    /** The worker's slice ended: its place in the lane, if it held one, is free for the next. */
    private void leaveLane(Worker worker) {
        if (!worker.holdsLane) {
            return;
        }
        lock.lock();
        try {
            worker.holdsLane = false;
            queues.leaveLane();
            notEmpty.signal(); // an expensive task may have waited for the place
        } finally {
            lock.unlock();
        }
    }

    private void work() {
        Worker worker = new Worker();
        currentWorker.set(worker);
        List<Queued> expired = new ArrayList<>();
        while (!closed) {
            Queued next;
            try {
                next = take(worker, expired);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (Queued queued : expired) {
                runSafely(queued.onExpiry());
            }
            expired.clear();
            if (next != null) {
                try {
                    runSafely(next.work());
                } finally {
                    leaveLane(worker);
                }
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
