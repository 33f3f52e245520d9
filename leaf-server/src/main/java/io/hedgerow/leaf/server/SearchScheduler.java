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
 * starvation guard for lower classes, and expired work dropped at dequeue (answered EXPIRED without
 * running). Each class's queue of fresh work is shallow and bounded: a full one refuses at once, so
 * the root can try another replica instead of waiting behind a backlog. A cancelled task leaves its
 * queue at once ({@link #remove}).
 *
 * <p>Requests carry a scheduling class ({@link Priority}: interactive, backup, batch, shadow), so a
 * leaf serves its own primaries before other leaves' backups: a backup sent to hedge a slow replica
 * must not slow down the primaries of the leaf it lands on. A sliced search that yields
 * ({@code --slice}) {@link #requeue requeues} its continuation below the fresh work of its class.
 *
 * <p><b>The expensive lane.</b> With lanes on ({@link SchedulingConfig#lanes()}) the pool has, next
 * to its search workers, {@link SchedulingConfig#laneWorkers(int) lane workers} of their own that
 * run only expensive work, and the search workers run none: a search known to be expensive (the
 * root's hint on arrival, {@link #trySubmit(LeafTask, int, long, Runnable)}, or its cost estimated
 * on the worker that took it) moves to the lane ({@link #requeue(Runnable, int, boolean)}); a search
 * estimated cheap runs whole on its search worker ({@link SearchTask}). So cheap work never waits for a worker behind
 * expensive work. And since a free worker is not a free core (the operating system shares the
 * cores between the leaf's threads and other processes), the lane also steps aside for cheap work
 * of its class or higher at the end of each of its slices, and waits while such work runs or waits
 * ({@link LaneGate}).
 *
 * <p><b>Assumptions and guarantees.</b> {@link #trySubmit}, {@link #requeue} and {@link #remove}
 * are non-blocking (they take a lock held only for a few field updates, as
 * {@code ArrayBlockingQueue} does) and may be called from event loops. Tasks run on platform threads
 * created once. A cheap task that runs in one pass takes the lock twice: once queued, once taken
 * (the end of the worker's previous task is booked in the same round trip as the take). {@link
 * #queued()} reads a volatile copy of the queues' size written under the lock after each change,
 * so it needs no lock and may be a moment old (it is only reported). A lane worker is signalled
 * only when lane work waits: when lane work is queued, or when a cheap task ends while lane work
 * waits at the gate ({@link LaneGate}); cheap work alone never wakes it. {@link #runsExpensiveWork}
 * and {@link #shouldYield} answer for the calling worker. After {@link #close()} nothing new is
 * accepted and workers stop after their current task.
 *
 * <p>What a task costs its worker is not the scheduler's business: each worker marks the start of
 * its task's CPU time as it takes it, and {@link TaskCpuTime} answers the rest.
 */
final class SearchScheduler implements AutoCloseable {
    /** A queued task, its wire priority, and what answers it if its deadline passes while it waits. */
    private record Queued(Runnable work, int priority, Runnable onExpiry) {
    }

    /** A worker's own state: whether it is one of the lane's. */
    private record Worker(boolean lane) {
    }

    private static final Runnable NOTHING = () -> { };

    private final ReentrantLock lock = new ReentrantLock();
    /** Search workers wait on this for cheap work, lane workers on the other for expensive work. */
    private final Condition cheapWork = lock.newCondition();
    private final Condition laneWork = lock.newCondition();
    private final SchedulingConfig config;
    /** Guarded by {@link #lock}. */
    private final ClassQueues<Queued> queues;
    /** Queued entries of tasks, so a cancel can take its task out; guarded by {@link #lock}. */
    private final IdentityHashMap<Runnable, Queued> entries = new IdentityHashMap<>();
    private final List<Thread> workers = new ArrayList<>();
    private final List<Thread> laneWorkers = new ArrayList<>();
    /** The calling worker's state; null on other threads. */
    private final ThreadLocal<Worker> currentWorker = new ThreadLocal<>();
    /** Guarded by {@link #lock}. */
    private final LaneGate gate;
    private final Ticker ticker;
    private final TaskCpuTime cpuTime;
    /** {@code queues.size()}, written under the lock after each change, read without it. */
    private volatile int queuedCount;
    /** Signals of {@link #laneWork}; guarded by {@link #lock}. */
    private long laneSignals;
    private volatile boolean closed;

    /** Slices measured on each worker's thread CPU time. */
    SearchScheduler(int workers, SchedulingConfig config, Ticker ticker) {
        this(workers, config, ticker, ThreadCpuClock.orWallClock());
    }

    /**
     * @param workers   search threads
     * @param ticker    the clock of deadlines, queueing, aging and the lane's gate
     * @param workClock what a task's CPU time and a slice's budget are measured on, read on the worker
     *                  that runs it ({@link TaskCpuTime})
     */
    SearchScheduler(int workers, SchedulingConfig config, Ticker ticker, Ticker workClock) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        this.config = config;
        this.ticker = ticker;
        this.cpuTime = new TaskCpuTime(workClock);
        this.queues = new ClassQueues<>(config, ticker);
        this.gate = new LaneGate(config.continuationAging());
        for (int i = 0; i < workers; i++) {
            this.workers.add(start("leaf-worker-" + i, () -> work(false)));
        }
        int lanes = config.lanes() ? SchedulingConfig.laneWorkers(workers) : 0;
        for (int i = 0; i < lanes; i++) {
            laneWorkers.add(start("leaf-lane-" + i, () -> work(true)));
        }
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
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

    /**
     * Queues one task that runs {@code searches} searches one after another ({@link SearchParts}),
     * as cheap work: it takes one place in the queue to be admitted and counts for each of its
     * searches in the depth and the queue length the answers report (see {@link ClassQueues}).
     */
    boolean trySubmit(SearchParts parts, int searches) {
        return offer(parts, parts.priority(), parts.deadlineNanos(), parts::expireQueued, false, searches);
    }

    private boolean offer(Runnable task, int priority, long deadlineNanos, Runnable onExpiry, boolean expensive) {
        return offer(task, priority, deadlineNanos, onExpiry, expensive, 1);
    }

    private boolean offer(Runnable task, int priority, long deadlineNanos, Runnable onExpiry, boolean expensive,
            int searches) {
        if (closed) {
            return false;
        }
        Queued queued = new Queued(task, priority, onExpiry);
        lock.lock();
        try {
            if (!queues.offer(queued, priority, deadlineNanos, expensive, searches)) {
                return false;
            }
            entries.put(task, queued);
            queuedCount = queues.size();
            if (expensive) {
                signalLane();
            } else {
                cheapWork.signal();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the caller may run a cheap task of class {@code priority} itself, now, instead of
     * queueing it ({@link SchedulingConfig#inlineCheap()}, experimental): only when nothing is
     * queued, so it overtakes nothing, and a search worker is idle, so it adds no more searches at
     * once than the workers would run. When true, the task counts as cheap work running, which the
     * lane steps aside for ({@link LaneGate}), until the caller calls {@link #inlineEnded}.
     * Non-blocking (the lock, briefly): callable from an event loop.
     */
    boolean tryStartInline(int priority) {
        if (!config.inlineCheap() || !config.lanes() || closed) {
            return false;
        }
        lock.lock();
        try {
            // Only search workers wait on cheapWork: one waiting is an idle search worker. Asked
            // here, not counted on every worker's wait, so the default path pays nothing for it.
            if (queues.size() > 0 || !lock.hasWaiters(cheapWork)) {
                return false;
            }
            gate.cheapStarted(priority);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A task {@link #tryStartInline started inline} ended. */
    void inlineEnded(int priority) {
        lock.lock();
        try {
            gate.cheapEnded(priority);
            if (!laneWorkers.isEmpty() && queues.highestWaiting(true) >= 0) {
                signalLane();
            }
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
     * @param expensive whether it runs in the expensive lane (with lanes on; cheap work otherwise)
     * @return false only when the scheduler is closed
     */
    boolean requeue(Runnable continuation, int priority, boolean expensive) {
        if (closed) {
            return false;
        }
        boolean toLane = expensive && config.lanes();
        Worker worker = currentWorker.get();
        boolean paused = toLane && worker != null && worker.lane(); // a lane search keeps its place
        lock.lock();
        try {
            Queued queued = new Queued(continuation, priority, NOTHING);
            if (paused) {
                queues.requeueFirst(queued, priority);
            } else {
                queues.requeue(queued, priority, toLane);
            }
            entries.put(continuation, queued);
            queuedCount = queues.size();
            if (toLane) {
                signalLane();
            } else {
                cheapWork.signal();
            }
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
            boolean removed = queued != null && queues.remove(queued, priority);
            queuedCount = queues.size();
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the calling thread may run expensive work: with lanes off, on a lane worker, or on a
     * thread that is not one of the workers. False on a search worker with lanes on: an expensive
     * search there moves to the lane.
     */
    boolean runsExpensiveWork() {
        Worker worker = currentWorker.get();
        return !config.lanes() || worker == null || worker.lane();
    }

    /** Whether the calling thread is one of the lane's workers. */
    boolean onLaneWorker() {
        Worker worker = currentWorker.get();
        return worker != null && worker.lane();
    }

    /**
     * Whether the calling worker's search should yield at the end of a slice of class {@code
     * priority}. On a search worker (or another thread): whether cheap work of that class or a
     * higher one waits (lower classes would not run first anyway: a worker takes the highest class
     * waiting). On a lane worker: whether lane work of a higher class waits, or cheap work of its
     * class or a higher one runs or waits ({@link LaneGate}); lane work of its own class waits its
     * turn (see {@link ClassQueues}: the lane runs one search after the other).
     */
    boolean shouldYield(int priority) {
        Worker worker = currentWorker.get();
        int cls = SchedulingConfig.classOf(priority);
        lock.lock();
        try {
            if (worker == null || !worker.lane()) {
                return queues.hasWaitingAtOrAbove(priority);
            }
            int laneWaiting = queues.highestWaiting(true);
            return laneWaiting >= 0 && laneWaiting < cls || gate.holdsBack(cls, queues.highestWaiting(false));
        } finally {
            lock.unlock();
        }
    }

    /** The CPU time of the task each worker runs, and the clock it and the slices are measured on. */
    TaskCpuTime cpuTime() {
        return cpuTime;
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
        laneWorkers.forEach(LockSupport::unpark);
    }

    /**
     * Searches waiting in every class (tasks and continuations; a {@link SearchParts} counts for each
     * of its parts), as of the last change to the queues: read without the lock (every answer
     * reports it), so it may be a moment old.
     */
    int queued() {
        return queuedCount;
    }

    /**
     * Searches waiting in {@code priority}'s class (tasks and continuations; a {@link SearchParts}
     * counts for each of its parts), read under the lock: for the
     * leaf's {@code /metrics}, once a scrape, never on the answer path.
     */
    int queued(int priority) {
        lock.lock();
        try {
            return queues.size(priority);
        } finally {
            lock.unlock();
        }
    }

    /** How often a lane worker was signalled (for tests: cheap work alone signals it never). */
    long laneSignals() {
        lock.lock();
        try {
            return laneSignals;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes a lane worker; the caller holds the lock. */
    private void signalLane() {
        laneSignals++;
        laneWork.signal();
    }

    /** Search threads. */
    int workers() {
        return workers.size();
    }

    /** Threads of the expensive lane (none with lanes off). */
    int laneWorkers() {
        return laneWorkers.size();
    }

    /**
     * The next live task of the worker's pool; the expired ones met on the way go to {@code expired}.
     * A lane worker waits while cheap work holds the lane back ({@link LaneGate}), up to the most it
     * may. A search worker's previous task, if any, ended.
     *
     * @param ended the search worker's task that ended, or null
     */
    private Queued take(Worker worker, Queued ended, List<Queued> expired) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            if (ended != null) {
                gate.cheapEnded(ended.priority());
                // The gate may have opened, which matters only to lane work waiting at it: with none
                // waiting a signal would only wake a lane worker to find nothing (a context switch
                // per cheap task).
                if (!laneWorkers.isEmpty() && queues.highestWaiting(true) >= 0) {
                    signalLane();
                }
            }
            long waitingSince = LaneGate.NOT_WAITING;
            while (true) {
                if (worker.lane()) {
                    int laneClass = queues.highestWaiting(true);
                    long nowNanos = ticker.nanoTime();
                    if (laneClass >= 0 && !gate.mayRun(laneClass, queues.highestWaiting(false), waitingSince, nowNanos)) {
                        if (waitingSince == LaneGate.NOT_WAITING) {
                            waitingSince = nowNanos;
                        }
                        laneWork.awaitNanos(gate.waitLeftNanos(waitingSince, nowNanos));
                        continue;
                    }
                }
                Queued next = queues.poll(expired, worker.lane());
                queuedCount = queues.size();
                expired.forEach(queued -> entries.remove(queued.work()));
                if (next != null) {
                    entries.remove(next.work());
                    if (!worker.lane()) {
                        gate.cheapStarted(next.priority());
                    }
                    return next;
                }
                if (!expired.isEmpty()) {
                    return null; // answer those first, outside the lock
                }
                (worker.lane() ? laneWork : cheapWork).await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void work(boolean lane) {
        Worker worker = new Worker(lane);
        currentWorker.set(worker);
        cpuTime.startsOnThisThread();
        List<Queued> expired = new ArrayList<>();
        Queued ended = null;
        while (!closed) {
            Queued next;
            try {
                next = take(worker, ended, expired);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            ended = null;
            for (Queued queued : expired) {
                runSafely(queued.onExpiry());
            }
            expired.clear();
            if (next != null) {
                runSafely(next.work());
                ended = lane ? null : next;
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
        laneWorkers.forEach(Thread::interrupt);
    }
}
