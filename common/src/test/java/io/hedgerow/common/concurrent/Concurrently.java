package io.hedgerow.common.concurrent;

import java.time.Duration;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * Test scaffolding for "never waits" claims: run an action on its own thread while a lock is held
 * elsewhere, and tell whether it finished before a deadline. The deadline is not a timing claim: an
 * action that waits for the held lock never finishes while it is held, so any generous deadline
 * tells the two apart, and a regression costs the deadline, not the class timeout.
 *
 * <p>Every method joins the thread it started before returning (after letting go of what it held),
 * and rethrows what the action threw, so an assertion inside the action fails the test.
 */
public final class Concurrently {
    /** Long enough for any action that does not wait on a lock, on a loaded 2-core machine. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private Concurrently() {
    }

    /** Whether {@code action}, run on a new thread, finished within {@link #DEADLINE} while this thread held {@code monitor}. */
    public static boolean finishesWhileHolding(Object monitor, Runnable action) {
        Run run;
        synchronized (monitor) {
            run = Run.start(action);
            run.awaitDone();
        }
        return run.joined();
    }

    /** Whether {@code action}, run on a new thread, finished within {@link #DEADLINE} while this thread held {@code lock}. */
    public static boolean finishesWhileHolding(Lock lock, Runnable action) {
        Run run;
        lock.lock();
        try {
            run = Run.start(action);
            run.awaitDone();
        } finally {
            lock.unlock();
        }
        return run.joined();
    }

    /**
     * Whether {@code action}, run on a new thread, finished within {@link #DEADLINE}; then runs
     * {@code release} (which lets go of whatever the test holds) and joins it.
     */
    public static boolean finishesBefore(Runnable release, Runnable action) {
        Run run = Run.start(action);
        try {
            run.awaitDone();
        } finally {
            release.run();
        }
        return run.joined();
    }

    /** Waits for {@code latch}; an interrupt ends the wait and stays set. */
    public static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits at {@code barrier}; an interrupt ends the wait and stays set, a broken barrier throws. */
    public static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (BrokenBarrierException e) {
            throw new IllegalStateException("barrier broken", e);
        }
    }

    /** One action on its own thread, with what it threw. */
    private static final class Run {
        private final CountDownLatch done = new CountDownLatch(1);
        private final AtomicReference<Throwable> thrown = new AtomicReference<>();
        private final Thread thread;
        private boolean finished;

        private Run(Runnable action) {
            thread = new Thread(() -> {
                try {
                    action.run();
                } catch (Throwable t) {
                    thrown.set(t);
                } finally {
                    done.countDown();
                }
            }, "concurrently");
        }

        static Run start(Runnable action) {
            Run run = new Run(action);
            run.thread.start();
            return run;
        }

        void awaitDone() {
            try {
                finished = done.await(DEADLINE.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the action", e);
            }
        }

        /** Joins the thread (the lock is let go by now) and rethrows its failure: whether it finished in time. */
        boolean joined() {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted joining the action", e);
            }
            Throwable t = thrown.get();
            if (t instanceof RuntimeException r) {
                throw r;
            }
            if (t instanceof Error err) {
                throw err;
            }
            return finished;
        }
    }
}
