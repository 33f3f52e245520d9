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
 * <p><b>Assumptions and guarantees.</b> As {@link SharedCores}; completions run in start order among
 * jobs done at the same time. Services within {@value #LEVEL_NANOS} ns of each other are level
 * (events fall on whole nanoseconds).
 */
final class LeastAttainedService extends SharedCores<LeastAttainedService.Job> {
    /** Jobs whose service had differs by less than this are level: the clock's rounding, not CPU. */
    private static final double LEVEL_NANOS = 2;
    private static final Comparator<Job> BY_SERVICE = Comparator.<Job>comparingDouble(j -> j.attained)
            .thenComparingLong(j -> j.sequence);

    static final class Job extends SharedCores.Job {
        private double attained;
        /** Share of a core it gets now. */
        private double rate;

        private Job(double work, Runnable done, long sequence) {
            super(work, done, sequence);
        }
    }

    /** The jobs on the cores (not suspended, not over), in order of service had after {@link #nextEventNanos}. */
    private final List<Job> active = new ArrayList<>();

    LeastAttainedService(int cores, EventQueue clock) {
        super(cores, clock);
    }

    @Override
    Job newJob(double work, Runnable done, long sequence) {
        return new Job(work, done, sequence);
    }

    @Override
    public int running() {
        return active.size();
    }

    @Override
    void start(Job job) {
        active.add(job);
    }

    @Override
    void take(Job job) {
        active.remove(job);
    }

    /** Every active job's service up to now, at the rates set by the last {@link #nextEventNanos}. */
    @Override
    void advance() {
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
     * cores the groups below it left; the next event is a completion, or a group catching up with
     * the one above it.
     */
    @Override
    long nextEventNanos() {
        if (active.isEmpty()) {
            return -1;
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
        return updatedNanos + (long) Math.ceil(next);
    }

    @Override
    List<Job> takeFinished() {
        List<Job> finished = new ArrayList<>(2);
        for (Job job : active) {
            if (job.remaining <= DONE_NANOS) {
                finished.add(job);
            }
        }
        active.removeAll(finished);
        finished.sort(Comparator.comparingLong(j -> j.sequence));
        return finished;
    }
}
