package io.hedgerow.root.sim;

import java.util.List;

/**
 * What every {@link SharedCpu} discipline shares: a job's life (running, suspended, over), the
 * clock's bookkeeping, and completions as events of their own, of which only the last scheduled is
 * current. A discipline says how service advances, where a job goes on and off the cores, and when
 * the next event is.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread, on
 * the simulation's {@link EventQueue}. Jobs done at one event run their {@code done} in the order
 * the discipline lists them, after the state is consistent again (a {@code done} may start or stop
 * jobs).
 */
abstract class SharedCores<J extends SharedCores.Job> implements SharedCpu {
    /** Below this many nanoseconds of work left a job is done: rounding, not work. */
    static final double DONE_NANOS = 1e-3;

    /** A piece of work on the cores; a discipline adds where it stands. */
    static class Job implements SharedCpu.Job {
        final Runnable done;
        final long sequence;
        /** Work left (a discipline may keep it elsewhere while the job runs). */
        double remaining;
        boolean running;
        boolean over;

        Job(double work, Runnable done, long sequence) {
            this.remaining = work;
            this.done = done;
            this.sequence = sequence;
        }

        @Override
        public boolean over() {
            return over;
        }
    }

    final int cores;
    final EventQueue clock;
    /** When service was last advanced. */
    long updatedNanos;
    double busyCoreNanos;
    private long nextSequence;
    /** Which scheduled event is the current one: an earlier one is stale when it fires. */
    private long generation;

    SharedCores(int cores, EventQueue clock) {
        if (cores < 1) {
            throw new IllegalArgumentException("cores: " + cores + " (expected: >= 1)");
        }
        this.cores = cores;
        this.clock = clock;
    }

    /** A new job of {@code work} nanoseconds. */
    abstract J newJob(double work, Runnable done, long sequence);

    /** Every running job's service up to now, and {@link #busyCoreNanos}; sets {@link #updatedNanos}. */
    abstract void advance();

    /** Puts the job on the cores with the work it has left. */
    abstract void start(J job);

    /** Takes the job off the cores, its work left in {@link Job#remaining}. */
    abstract void take(J job);

    /** Takes every job that is done off the cores, in the order their {@code done}s run. */
    abstract List<J> takeFinished();

    /** Sets the running jobs' shares and returns when the next event is due, or -1 for none. */
    abstract long nextEventNanos();

    @Override
    public final SharedCpu.Job run(double workNanos, Runnable done) {
        J job = newJob(Math.max(0, workNanos), done, nextSequence++);
        advance();
        job.running = true;
        start(job);
        reschedule();
        return job;
    }

    @Override
    @SuppressWarnings("unchecked")
    public final double stop(SharedCpu.Job stopped) {
        J job = (J) stopped;
        if (job.over) {
            return 0;
        }
        advance();
        if (job.running) {
            take(job);
            job.running = false;
        }
        job.over = true;
        reschedule();
        return Math.max(0, job.remaining);
    }

    @Override
    @SuppressWarnings("unchecked")
    public final void suspend(SharedCpu.Job suspended) {
        J job = (J) suspended;
        if (job.over || !job.running) {
            return;
        }
        advance();
        take(job);
        job.running = false;
        reschedule();
    }

    @Override
    @SuppressWarnings("unchecked")
    public final void resume(SharedCpu.Job resumed) {
        J job = (J) resumed;
        if (job.over || job.running) {
            return;
        }
        advance();
        job.running = true;
        start(job);
        reschedule();
    }

    @Override
    public final double busyCoreNanos() {
        advance();
        return busyCoreNanos;
    }

    private void reschedule() {
        long current = ++generation;
        long at = nextEventNanos();
        if (at >= 0) {
            clock.at(at, () -> {
                if (generation == current) {
                    event();
                }
            });
        }
    }

    /** A completion (or whatever else the discipline scheduled): the jobs done leave, then their {@code done}s run. */
    private void event() {
        advance();
        List<J> finished = takeFinished();
        for (J job : finished) {
            job.running = false;
            job.over = true;
        }
        reschedule();
        for (J job : finished) {
            job.done.run();
        }
    }
}
