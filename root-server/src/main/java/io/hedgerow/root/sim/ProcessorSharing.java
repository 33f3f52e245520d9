package io.hedgerow.root.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Cores shared by every piece of work given to them, as processor sharing: with
 * {@code n} jobs running on {@code c} cores each advances at {@code min(1, c / n)} of full speed,
 * the fair share of an ideal time-sharing scheduler with an infinitely small time slice.
 *
 * <p>Each job's progress is kept as a finish point on a shared scale of attained service (every
 * running job has received the same service since the scale's origin), so an arrival or a departure
 * costs one heap operation and one rescheduled completion, not a pass over the jobs.
 *
 * <p><b>Assumptions and guarantees.</b> As {@link SharedCores}; completions run in finish order
 * (start order among equal finishes).
 */
final class ProcessorSharing extends SharedCores<ProcessorSharing.Job> {
    static final class Job extends SharedCores.Job {
        /** Where on the attained-service scale it ends, while it runs. */
        private double finish;

        private Job(double work, Runnable done, long sequence) {
            super(work, done, sequence);
        }
    }

    private final PriorityQueue<Job> running = new PriorityQueue<>((a, b) -> a.finish != b.finish
            ? Double.compare(a.finish, b.finish) : Long.compare(a.sequence, b.sequence));
    /** Service every running job has received since the origin, as of {@link #updatedNanos}. */
    private double attained;

    ProcessorSharing(int cores, EventQueue clock) {
        super(cores, clock);
    }

    @Override
    Job newJob(double work, Runnable done, long sequence) {
        return new Job(work, done, sequence);
    }

    @Override
    public int running() {
        return running.size();
    }

    /** How fast each running job advances now: a full core each until there are more jobs than cores. */
    private double rate() {
        int n = running.size();
        return n <= cores ? 1 : (double) cores / n;
    }

    @Override
    void start(Job job) {
        job.finish = attained + job.remaining;
        running.add(job);
    }

    @Override
    void take(Job job) {
        running.remove(job);
        job.remaining = Math.max(0, job.finish - attained);
    }

    @Override
    void advance() {
        long now = clock.nanoTime();
        long elapsed = now - updatedNanos;
        if (elapsed > 0 && !running.isEmpty()) {
            double rate = rate();
            attained += elapsed * rate;
            busyCoreNanos += elapsed * rate * running.size();
        }
        updatedNanos = now;
    }

    @Override
    long nextEventNanos() {
        Job first = running.peek();
        if (first == null) {
            return -1;
        }
        double wait = Math.max(0, first.finish - attained) / rate();
        return updatedNanos + (long) Math.ceil(wait);
    }

    @Override
    List<Job> takeFinished() {
        List<Job> finished = new ArrayList<>(2);
        while (!running.isEmpty() && running.peek().finish - attained <= DONE_NANOS) {
            finished.add(running.poll());
        }
        return finished;
    }
}
