package io.hedgerow.root.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Cores shared by least attained service (foreground-background): the jobs that have had the least
 * CPU so far run first. A job that arrives has had none, so it takes a core at once from jobs that
 * have run, and runs at full speed while fewer such jobs than cores want one; jobs level with each
 * other share what is left evenly, and a group that runs faster than the one above it catches up
 * with it and then shares with it. Short work finishes in about its own time however long the
 * other work is, which is what Linux's fair scheduler does for a thread that wakes from sleep
 * (placed ahead of threads that have been running) and what processor sharing does not.
 *
 * <p>The jobs on the cores are few (a machine's runnable threads), so each event recomputes every
 * job's rate from the jobs in order of service had: linear in the jobs, plus a sort.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread, on
 * the simulation's {@link EventQueue}. Completions run as their own event, in start order among
 * jobs done at the same time. Services within {@value #LEVEL_NANOS} ns of each other are level
 * (events fall on whole nanoseconds).
 */
final class LeastAttainedService implements SharedCpu {
    private static final double DONE_NANOS = 1e-3;
    /** Jobs whose service had differs by less than this are level: the clock's rounding, not CPU. */
    private static final double LEVEL_NANOS = 2;
    private static final Comparator<Job> BY_SERVICE = Comparator.<Job>comparingDouble(j -> j.attained)
            .thenComparingLong(j -> j.sequence);

    private static final class Job implements SharedCpu.Job {
        private final Runnable done;
        private final long sequence;
        private double attained;
        private double remaining;
        /** Share of a core it gets now. */
        private double rate;
        private boolean running;
        private boolean over;

        private Job(double work, Runnable done, long sequence) {
            this.remaining = work;
            this.done = done;
            this.sequence = sequence;
        }

        @Override
        public boolean over() {
            return over;
        }
    }

    private final int cores;
    private final EventQueue clock;
    /** The jobs on the cores (not suspended, not over), in order of service had after {@link #reschedule}. */
    private final List<Job> active = new ArrayList<>();
    private long updatedNanos;
    private long nextSequence;
    /** Which scheduled event is the current one: an earlier one is stale when it fires. */
    private long generation;
    private double busyCoreNanos;

    LeastAttainedService(int cores, EventQueue clock) {
        if (cores < 1) {
            throw new IllegalArgumentException("cores: " + cores + " (expected: >= 1)");
        }
        this.cores = cores;
        this.clock = clock;
    }

    @Override
    public SharedCpu.Job run(double workNanos, Runnable done) {
        Job job = new Job(Math.max(0, workNanos), done, nextSequence++);
        advance();
        job.running = true;
        active.add(job);
        reschedule();
        return job;
    }

    @Override
    public double stop(SharedCpu.Job stopped) {
        Job job = (Job) stopped;
        if (job.over) {
            return 0;
        }
        advance();
        if (job.running) {
            active.remove(job);
            job.running = false;
        }
        job.over = true;
        reschedule();
        return Math.max(0, job.remaining);
    }

    @Override
    public void suspend(SharedCpu.Job suspended) {
        Job job = (Job) suspended;
        if (job.over || !job.running) {
            return;
        }
        advance();
        active.remove(job);
        job.running = false;
        job.rate = 0;
        reschedule();
    }

    @Override
    public void resume(SharedCpu.Job resumed) {
        Job job = (Job) resumed;
        if (job.over || job.running) {
            return;
        }
        advance();
        job.running = true;
        active.add(job);
        reschedule();
    }

    @Override
    public int running() {
        return active.size();
    }

    @Override
    public double busyCoreNanos() {
        advance();
        return busyCoreNanos;
    }

    /** Every active job's service up to now, at the rates set by the last {@link #reschedule}. */
    private void advance() {
        long now = clock.nanoTime();
        long elapsed = now - updatedNanos;
        if (elapsed > 0) {
            for (Job job : active) {
                double served = job.rate * elapsed;
                job.attained += served;
                job.remaining -= served;
                busyCoreNanos += served;
            }
        }
        updatedNanos = now;
    }

    /**
     * Sets each job's rate, groups of level jobs from the least served up, each group sharing the
     * cores the groups below it left; then schedules the next event: a completion, or a group
     * catching up with the one above it.
     */
    private void reschedule() {
        long current = ++generation;
        if (active.isEmpty()) {
            return;
        }
        active.sort(BY_SERVICE);
        double free = cores;
        double next = Double.POSITIVE_INFINITY;
        double belowRate = -1;
        double belowService = 0;
        int start = 0;
        while (start < active.size()) {
            int end = start + 1;
            while (end < active.size() && active.get(end).attained - active.get(start).attained < LEVEL_NANOS) {
                end++;
            }
            int size = end - start;
            double rate = free <= 0 ? 0 : Math.min(1, free / size);
            free -= rate * size;
            double service = active.get(start).attained;
            for (int i = start; i < end; i++) {
                Job job = active.get(i);
                job.rate = rate;
                if (rate > 0) {
                    next = Math.min(next, Math.max(0, job.remaining) / rate);
                }
            }
            if (belowRate > rate) {
                next = Math.min(next, (service - belowService) / (belowRate - rate)); // the group below catches up
            }
            belowRate = rate;
            belowService = service;
            start = end;
        }
        clock.at(updatedNanos + (long) Math.ceil(next), () -> {
            if (generation == current) {
                event();
            }
        });
    }

    /** A completion or a catch-up: the jobs done leave, the rates are set again, then their {@code done}s run. */
    private void event() {
        advance();
        List<Job> finished = new ArrayList<>(2);
        for (int i = 0; i < active.size(); i++) {
            Job job = active.get(i);
            if (job.remaining <= DONE_NANOS) {
                finished.add(job);
            }
        }
        if (!finished.isEmpty()) {
            active.removeAll(finished);
            finished.sort(Comparator.comparingLong(j -> j.sequence));
            for (Job job : finished) {
                job.running = false;
                job.over = true;
                job.rate = 0;
            }
        }
        reschedule();
        for (Job job : finished) {
            job.done.run(); // may start or stop jobs: the state is consistent before it runs
        }
    }
}
