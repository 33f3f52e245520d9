package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU time, as a {@link Ticker}: what a search's slices are budgeted on, so a
 * search the operating system takes off its core (two cores shared by four leaves, a root and a
 * load generator) is not charged for the time it waited, and one slice of work is one slice
 * whatever the machine does meanwhile. Falls back to the wall clock where the JVM cannot read
 * thread CPU time.
 *
 * <p><b>Assumptions and guarantees.</b> Each reading is of the calling thread only: differences are
 * meaningful only between readings on one thread (a slice runs on one worker). On Linux a reading is
 * one {@code clock_gettime} of the thread's CPU clock, well under a microsecond.
 */
final class ThreadCpuClock implements Ticker {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    private ThreadCpuClock() {
    }

    /** The thread CPU clock if this JVM has one, the wall clock otherwise. */
    static Ticker orWallClock() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            return Ticker.system();
        }
        if (!threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
        return new ThreadCpuClock();
    }

    @Override
    public long nanoTime() {
        return threads.getCurrentThreadCpuTime();
    }
}
