package io.hedgerow.root.sim;

import java.util.Locale;

/**
 * A machine's cores, shared by every piece of work given to them: what turns the measured CPU of a
 * cluster whose root, leaves and load generator share two cores into the wait for a core that its
 * sub-requests mostly spend. Work is a job of so many nanoseconds of CPU; how the cores divide
 * themselves among the jobs is the discipline:
 * <ul>
 *   <li>{@code ps}, {@link ProcessorSharing}: every running job gets an equal share;</li>
 *   <li>{@code las}, {@link LeastAttainedService}: the jobs that have had the least CPU go first,
 *       so a short job that arrives runs at once, ahead of long ones (Linux's fair scheduler gives
 *       a thread that wakes the CPU before threads that have been running: our jobs are such
 *       wake-ups, a worker taking a task, an event loop reading a frame).</li>
 * </ul>
 * A job can be suspended (its process stopped, as SIGSTOP does) and resumed with the work it had left.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread, on
 * the simulation's {@link EventQueue}. A job's completion runs as its own event.
 */
interface SharedCpu {
    /** A piece of work on the cores. */
    interface Job {
        /** Whether it finished or was stopped. */
        boolean over();
    }

    /** {@code cores} cores shared as {@code discipline} ({@code ps} or {@code las}) says. */
    static SharedCpu of(String discipline, int cores, EventQueue clock) {
        return switch (discipline.toLowerCase(Locale.ROOT)) {
            case "ps" -> new ProcessorSharing(cores, clock);
            case "las" -> new LeastAttainedService(cores, clock);
            default -> throw new IllegalArgumentException("cpu-sched: '" + discipline + "' (expected: ps or las)");
        };
    }

    /** Starts {@code workNanos} of CPU work now; {@code done} runs when it has had all of it. */
    Job run(double workNanos, Runnable done);

    /** Stops a job for good (a cancel, a crash); its {@code done} never runs. The work it had left. */
    double stop(Job job);

    /** Takes a job off the cores, keeping the work it has left (its process stopped). */
    void suspend(Job job);

    /** Puts a suspended job back on the cores. */
    void resume(Job job);

    /** Jobs on the cores now (suspended ones not counted). */
    int running();

    /** Core-nanoseconds of work done so far (a core busy for 1 s adds 1e9). */
    double busyCoreNanos();
}
