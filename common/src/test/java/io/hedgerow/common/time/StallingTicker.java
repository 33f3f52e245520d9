package io.hedgerow.common.time;

import io.hedgerow.common.concurrent.Concurrently;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ManualTicker} whose next read on one thread stalls until the test lets it go: a test
 * holds whatever lock the code under test holds while it reads the clock, the real lock rather than
 * a stand-in, by running a reader that stalls there ({@link #stallDuring}).
 */
public final class StallingTicker implements Ticker {
    private final ManualTicker time = new ManualTicker();
    private volatile Thread stalling;
    private final CountDownLatch stalled = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);

    @Override
    public long nanoTime() {
        if (Thread.currentThread() == stalling) {
            stalling = null; // once: the rest of the call reads the clock as usual
            stalled.countDown();
            Concurrently.awaitQuietly(resume);
        }
        return time.nanoTime();
    }

    public StallingTicker advance(Duration duration) {
        time.advance(duration);
        return this;
    }

    public StallingTicker advanceMillis(long millis) {
        time.advanceMillis(millis);
        return this;
    }

    /**
     * Starts {@code reader} on its own thread and returns once its first clock read stalls; closing
     * the stall lets that read go on and joins the thread. One stall per ticker.
     */
    public Stall stallDuring(Runnable reader) {
        if (resume.getCount() == 0) {
            throw new IllegalStateException("stallDuring: called twice (expected: one stall per ticker)");
        }
        Thread thread = new Thread(reader, "stalled-reader");
        stalling = thread;
        thread.start();
        try {
            if (!stalled.await(Concurrently.DEADLINE.toNanos(), TimeUnit.NANOSECONDS)) {
                resume.countDown();
                throw new IllegalStateException("stallDuring: the reader never read the clock within " + Concurrently.DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resume.countDown();
            throw new IllegalStateException("interrupted waiting for the reader to stall", e);
        }
        return new Stall(thread);
    }

    /** A reader stalled in a clock read; {@link #close} lets it finish. */
    public final class Stall implements AutoCloseable {
        private final Thread reader;

        private Stall(Thread reader) {
            this.reader = reader;
        }

        /** Lets the stalled read go on, so the reader finishes and lets go of its locks. */
        public void resume() {
            resume.countDown();
        }

        @Override
        public void close() throws InterruptedException {
            resume();
            reader.join();
        }
    }
}
