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
 * costs one heap operation and one rescheduled completion, not a pass over the jobs. A job can be
 * suspended (its process stopped, as SIGSTOP does) and resumed with the work it had left.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread, on
 * the simulation's {@link EventQueue}. A job's completion runs as its own event, in finish order
 * (start order among equal finishes).
 */
final class ProcessorSharing implements SharedCpu {
    /** Below this many nanoseconds of work left a job is done: rounding, not work. */
    private static final double DONE_NANOS = 1e-3;

    /** A piece of work on the cores. */
    private static final class Job implements SharedCpu.Job {
        private final Runnable done;
        private final long sequence;
        /** Where on the attained-service scale it ends, while it runs. */
        private double finish;
        /** Work left while suspended. */
        private double remaining;
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
    private final PriorityQueue<Job> running = new PriorityQueue<>((a, b) -> a.finish != b.finish
            ? Double.compare(a.finish, b.finish) : Long.compare(a.sequence, b.sequence));
    /** Service every running job has received since the origin, as of {@link #updatedNanos}. */
    private double attained;
    private long updatedNanos;
    private long nextSequence;
    /** Which scheduled completion is the current one: an earlier one is stale when it fires. */
    private long generation;
    private double busyCoreNanos;

    ProcessorSharing(int cores, EventQueue clock) {
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
        start(job);
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
        double left = job.running ? Math.max(0, job.finish - attained) : job.remaining;
        if (job.running) {
            running.remove(job);
            job.running = false;
        }
        job.over = true;
        reschedule();
        return left;
    }

    @Override
    public void suspend(SharedCpu.Job suspended) {
        Job job = (Job) suspended;
        if (job.over || !job.running) {
            return;
        }
        advance();
        running.remove(job);
        job.running = false;
        job.remaining = Math.max(0, job.finish - attained);
        reschedule();
    }

    @Override
    public void resume(SharedCpu.Job resumed) {
        Job job = (Job) resumed;
        if (job.over || job.running) {
            return;
        }
        advance();
        start(job);
        reschedule();
    }

    @Override
    public int running() {
        return running.size();
    }

    @Override
    public double busyCoreNanos() {
        advance();
        return busyCoreNanos;
    }

    /** How fast each running job advances now: a full core each until there are more jobs than cores. */
    private double rate() {
        int n = running.size();
        return n <= cores ? 1 : (double) cores / n;
    }

    private void start(Job job) {
        job.finish = attained + job.remaining;
        job.running = true;
        running.add(job);
    }

    private void advance() {
        long now = clock.nanoTime();
        long elapsed = now - updatedNanos;
        if (elapsed > 0 && !running.isEmpty()) {
            double rate = rate();
            attained += elapsed * rate;
            busyCoreNanos += elapsed * rate * running.size();
        }
        updatedNanos = now;
    }

    private void reschedule() {
        long current = ++generation;
        Job first = running.peek();
        if (first == null) {
            return;
        }
        double wait = Math.max(0, first.finish - attained) / rate();
        clock.at(updatedNanos + (long) Math.ceil(wait), () -> {
            if (generation == current) {
                complete();
            }
        });
    }

    /** The first job's completion: it and every job done with it leave, then their {@code done}s run. */
    private void complete() {
        advance();
        List<Job> finished = new ArrayList<>(2);
        while (!running.isEmpty() && running.peek().finish - attained <= DONE_NANOS) {
            Job job = running.poll();
            job.running = false;
            job.over = true;
            finished.add(job);
        }
        reschedule();
        for (Job job : finished) {
            job.done.run(); // may start or stop jobs: the state is consistent before it runs
        }
    }
}
