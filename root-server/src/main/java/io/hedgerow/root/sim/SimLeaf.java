package io.hedgerow.root.sim;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.server.LeafQueues;
import io.hedgerow.leaf.server.SchedulingConfig;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A modelled leaf: {@code workers} workers taking tasks from the leaf's own queue policy ({@link
 * LeafQueues}: classes, shallow queues that refuse with BUSY, expiry at dequeue), a service time
 * drawn per task, and what slows it:
 * <ul>
 *   <li><b>contention</b>: a task that starts while {@code b} of the {@code w} workers are busy
 *       (itself included) takes {@code 1 + contention * b / w} times its drawn time, so redundant
 *       work slows the leaf's other work, not only its queue;</li>
 *   <li><b>slow requests</b>: each task independently, with probability {@code slow-fraction},
 *       answers {@code slow} late (the paper's figure). The delay is outside the worker (a stall of
 *       the answer, not of the leaf), so the tasks stay independent and the analytic
 *       {@code 1 - (1 - p)^n} holds exactly;</li>
 *   <li><b>pauses</b>: every {@code pause-every}, at a phase of its own (or, with {@code pause-phase
 *       aligned}, at the same time as every other leaf), the whole leaf stops for
 *       {@code pause} (as a stop-the-world collection does): running work stretches over the pause
 *       and nothing starts in it; every leaf, or the first {@code pause-leaves};</li>
 *   <li><b>degraded</b>: all its work {@code degraded-factor} times slower, from {@code degraded-from}
 *       until {@code degraded-until};</li>
 *   <li><b>query cost</b>: each search's work is its own multiple of the drawn time on every leaf
 *       ({@code query-cost}), slowness correlated across the leaves of one search;</li>
 *   <li><b>skew</b>: the first {@code skew-partitions} partitions' searches cost {@code skew-factor}
 *       times as much (a hot part of the index: what selective replication and rebalancing see);</li>
 *   <li><b>crashed</b>: it drops everything and answers nothing; the root sees its connection
 *       close.</li>
 * </ul>
 * With {@code cores}, the leaf's work runs on the machine's cores shared with every other leaf, the
 * root and the client ({@link SharedCpu}): a task's drawn time is CPU it needs, which takes longer
 * while the machine is busy; each sub-request (a fetch too) also costs {@code leaf-cpu} of reading and
 * writing before it is queued; a pause suspends all of the leaf's work on the cores (its process
 * stopped), and a paused leaf reads nothing until the pause ends.
 * Cancels act as a real leaf's do ({@code InflightTasks}): the root's drops a queued task or stops
 * a running one; a twin's (leaf to leaf, {@code if_queued}) drops a queued or held task, leaves a
 * running one running (both ran), and is remembered when it overtakes its request.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: driven by its simulation's one thread.
 */
final class SimLeaf {
    /** Twin cancels remembered for requests not arrived yet, as a leaf's tombstones. */
    private static final int MAX_TOMBSTONES = 4096;

    private final int index;
    private final Simulation sim;
    private final SimConfig config;
    private final EventQueue clock;
    private final SplittableRandom random;
    /** This leaf's service time (its own when the config gives each leaf one). */
    private final ServiceTime service;
    private final ServiceTime fetchService;
    /** What a search of each shape draws from (by ordinal): its own ({@code mix-service}) or {@link #service}. */
    private final ServiceTime[] shapeService;
    private final LeafQueues<SimTask> queues;
    /** By request id, without boxing one: a put and a remove for every sub-request. */
    private final LongObjectHashMap<SimTask> inflight = new LongObjectHashMap<>();
    private final Map<Long, Boolean> tombstones = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > MAX_TOMBSTONES;
        }
    };
    private final List<SimTask> expired = new ArrayList<>();
    private final long pausePhaseNanos;
    private final boolean degraded;
    /** Whether this leaf pauses: the first {@code pause-leaves} do. */
    private final boolean pauses;
    /** The shared cores; null when each leaf's workers have cores of their own. */
    private final SharedCpu cpu;
    /** This leaf's work on the shared cores now: what a pause suspends. */
    private final Set<SharedCpu.Job> jobs = new LinkedHashSet<>();
    private int busy;
    private boolean crashed;
    private boolean wakeScheduled;

    SimLeaf(int index, Simulation sim, SimConfig config, EventQueue clock, SplittableRandom random, boolean degraded) {
        this.index = index;
        this.sim = sim;
        this.config = config;
        this.clock = clock;
        this.random = random;
        this.service = config.service.forLeaf(index);
        this.shapeService = new ServiceTime[SimMix.Shape.values().length];
        for (SimMix.Shape shape : SimMix.Shape.values()) {
            ServiceTime own = config.mix.service(shape);
            shapeService[shape.ordinal()] = own == null ? service : own.forLeaf(index);
        }
        this.fetchService = config.fetchService.forLeaf(index);
        this.queues = new LeafQueues<>(SchedulingConfig.defaults(), clock);
        // Drawn even when aligned, so both settings see the same random numbers after it.
        long ownPhase = config.pauseNanos > 0 ? (long) (random.nextDouble() * config.pauseEveryNanos) : 0;
        this.pausePhaseNanos = config.pauseAligned ? 0 : ownPhase;
        this.pauses = config.pauseNanos > 0 && index < config.pauseLeaves;
        this.degraded = degraded;
        this.cpu = sim.cpu();
        if (cpu != null && pauses) {
            clock.at(pausePhaseNanos, this::pauseStarts);
        }
    }

    /** A copy arrives from the root: read (on shared cores, {@code leaf-cpu} of work), then taken. */
    void arrive(SimTask task) {
        if (crashed) {
            sim.lostOnArrival(task);
            return;
        }
        if (cpu != null && config.leafCpuNanos > 0) {
            onCpu(config.leafCpuNanos, () -> take(task));
        } else {
            take(task);
        }
    }

    private void take(SimTask task) {
        if (crashed) {
            sim.lostOnArrival(task);
            return;
        }
        if (task.copy.twinLeaf() >= 0 && tombstones.remove(task.requestId) != null) {
            sim.counters().twinDroppedQueued++;
            sim.answer(task, Status.CANCELLED, 0, 0, 0);
            return;
        }
        inflight.put(task.requestId, task);
        if (task.copy.twinGraceNanos() > 0) {
            task.state = SimTask.State.HELD;
            clock.after(task.copy.twinGraceNanos(), () -> {
                if (task.state == SimTask.State.HELD) {
                    enqueue(task);
                }
            });
        } else {
            enqueue(task);
        }
    }

    private void enqueue(SimTask task) {
        long deadline = task.arrivedNanos + task.copy.budgetNanos();
        if (!queues.offer(task, task.copy.priority().getNumber(), deadline)) {
            inflight.remove(task.requestId);
            task.state = SimTask.State.DONE;
            sim.counters().busyAnswers++;
            sim.answer(task, Status.BUSY, 0, 0, 0);
            return;
        }
        task.state = SimTask.State.QUEUED;
        startWork();
    }

    /** Free workers take queued tasks, unless the leaf is paused (then it wakes at the pause's end). */
    private void startWork() {
        long now = clock.nanoTime();
        long pauseEnd = pauseEndAt(now);
        if (pauseEnd > now) {
            if (!wakeScheduled && queues.size() > 0 && busy < config.workers) {
                wakeScheduled = true;
                clock.at(pauseEnd, () -> {
                    wakeScheduled = false;
                    startWork();
                });
            }
            return;
        }
        while (busy < config.workers) {
            SimTask task = queues.poll(expired);
            for (SimTask late : expired) {
                inflight.remove(late.requestId);
                late.state = SimTask.State.DONE;
                sim.counters().expiredAnswers++;
                sim.answer(late, Status.EXPIRED, now - late.arrivedNanos, 0, 0);
            }
            expired.clear();
            if (task == null) {
                return;
            }
            start(task, now);
        }
    }

    private void start(SimTask task, long now) {
        busy++;
        task.state = SimTask.State.RUNNING;
        task.startedNanos = now;
        if (task.copy.twinLeaf() >= 0) {
            sim.cancelTwin(task.copy.twinLeaf(), task.copy.twinRequestId());
        }
        // A fetch (fetch-service) costs the same whatever the query: no query cost, no slow draw.
        boolean fetch = task.copy.fetch() != null;
        double slowdown = (1 + config.contention * busy / config.workers) * speedNow()
                * (fetch ? 1 : sim.costOf(task.copy) * (task.copy.partition() < config.skewPartitions ? config.skewFactor : 1));
        SimMix.Shape shape = fetch ? null : sim.shapeOf(task.copy);
        ServiceTime drawn = fetch ? fetchService : shape == null ? service : shapeService[shape.ordinal()];
        long work = (long) (drawn.sampleNanos(random) * slowdown);
        long stall = !fetch && config.slowFraction > 0 && random.nextDouble() < config.slowFraction ? config.slowNanos : 0;
        sim.counters().started++;
        if (cpu != null) {
            // The worker's wall time is counted as it ends: on shared cores it is not known at the start.
            task.job = onCpu(work, () -> finish(task, now, stall));
            return;
        }
        long end = finishAt(now, work);
        task.endNanos = end;
        sim.counters().workNanos += work;
        clock.at(end, () -> finish(task, now, stall));
    }

    private void finish(SimTask task, long startedNanos, long stallNanos) {
        if (task.state != SimTask.State.RUNNING) {
            return; // stopped by a cancel, or the leaf crashed
        }
        long now = clock.nanoTime();
        task.state = SimTask.State.DONE;
        inflight.remove(task.requestId);
        busy--;
        if (cpu != null) {
            sim.counters().workNanos += now - startedNanos;
        }
        sim.answer(task, Status.OK, startedNanos - task.arrivedNanos, now - startedNanos, stallNanos);
        startWork();
    }

    /** How much slower work is now: the degraded factor while this leaf is degraded, else 1. */
    private double speedNow() {
        long now = clock.nanoTime();
        return degraded && now >= config.degradedFromNanos && now < config.degradedUntilNanos ? config.degradedFactor : 1;
    }

    /** Runs {@code workNanos} of this leaf's work on the shared cores, suspended at once if the leaf is paused. */
    private SharedCpu.Job onCpu(long workNanos, Runnable done) {
        SharedCpu.Job[] started = new SharedCpu.Job[1];
        started[0] = cpu.run(workNanos, () -> {
            jobs.remove(started[0]);
            done.run();
        });
        jobs.add(started[0]);
        if (pauseEndAt(clock.nanoTime()) > clock.nanoTime()) {
            cpu.suspend(started[0]);
        }
        return started[0];
    }

    /** On shared cores, a pause suspends everything the leaf runs, and the pause's end resumes it. */
    private void pauseStarts() {
        if (crashed || !sim.running()) {
            return;
        }
        for (SharedCpu.Job job : jobs) {
            cpu.suspend(job);
        }
        clock.after(config.pauseNanos, () -> {
            for (SharedCpu.Job job : jobs) {
                cpu.resume(job);
            }
            startWork();
        });
        clock.after(config.pauseEveryNanos, this::pauseStarts);
    }

    /**
     * The root's cancel: drop it if waiting (answered CANCELLED), stop it if running (answered OK, cut
     * short, after the time it ran), as a leaf does ({@code LeafTask.cancel}), so the root stops
     * counting it as outstanding. A paused leaf answers at the pause's end.
     *
     * <p>The stopped copy's answer is OK as a real leaf's is: the root takes its round trip as a
     * sample of the leaf's latency (probation, C3's rank, slow start). Answering it CANCELLED, as this
     * did, hid from the root every hedged copy a slow leaf lost, so the slow leaf looked as fast as
     * the answers it won in time and kept getting primaries.
     */
    void cancel(long requestId) {
        SimTask task = inflight.remove(requestId);
        if (task == null) {
            return;
        }
        if (task.state != SimTask.State.DONE) {
            long now = clock.nanoTime();
            if (task.state == SimTask.State.RUNNING) {
                long queueNanos = task.startedNanos - task.arrivedNanos;
                long ranNanos = now - task.startedNanos;
                clock.at(pauseEndAt(now), () -> sim.answerCutShort(task, queueNanos, ranNanos));
            } else {
                clock.at(pauseEndAt(now), () -> sim.answer(task, Status.CANCELLED, 0, 0, 0));
            }
        }
        switch (task.state) {
            case HELD -> task.state = SimTask.State.DONE;
            case QUEUED -> {
                queues.remove(task, task.copy.priority().getNumber());
                task.state = SimTask.State.DONE;
            }
            case RUNNING -> {
                task.state = SimTask.State.DONE;
                busy--;
                sim.counters().stoppedRunning++;
                stopRunning(task);
                startWork();
            }
            case DONE -> {
            }
        }
    }

    /** A twin's cancel from another leaf: drop it if it has not started; remember it if it has not come. */
    void twinCancel(long requestId) {
        if (crashed) {
            return;
        }
        SimTask task = inflight.get(requestId);
        if (task == null) {
            tombstones.put(requestId, Boolean.TRUE);
            return;
        }
        switch (task.state) {
            case HELD, QUEUED -> {
                inflight.remove(requestId);
                if (task.state == SimTask.State.QUEUED) {
                    queues.remove(task, task.copy.priority().getNumber());
                }
                task.state = SimTask.State.DONE;
                sim.counters().twinDroppedQueued++;
                sim.answer(task, Status.CANCELLED, clock.nanoTime() - task.arrivedNanos, 0, 0);
            }
            case RUNNING -> sim.counters().twinBothRan++;
            case DONE -> {
            }
        }
    }

    /** The leaf stops: everything it holds is lost with its connection. */
    void crash() {
        crashed = true;
        for (SimTask task : inflight.values()) {
            if (task.state == SimTask.State.RUNNING) {
                stopRunning(task);
            }
            task.state = SimTask.State.DONE;
            sim.lostInCrash(task);
        }
        inflight.clear();
        if (cpu != null) {
            // Reads in progress end as they would, told of the crash as they do (a crashed leaf's
            // pause never ends, so a paused one's are let go now).
            for (SharedCpu.Job job : List.copyOf(jobs)) {
                cpu.resume(job);
            }
        }
        busy = 0;
    }

    /** A running task stopped: the rest of its work is never done. */
    private void stopRunning(SimTask task) {
        long now = clock.nanoTime();
        if (cpu != null) {
            cpu.stop(task.job);
            jobs.remove(task.job);
            sim.counters().workNanos += now - task.startedNanos;
        } else {
            // A pause in the rest counts as work: rare, small.
            sim.counters().workNanos -= Math.max(0, task.endNanos - now);
        }
    }

    boolean crashed() {
        return crashed;
    }

    int index() {
        return index;
    }

    /** The end of the pause {@code now} is in, or {@code now} when the leaf is not paused. */
    private long pauseEndAt(long now) {
        if (!pauses) {
            return now;
        }
        long intoCycle = Math.floorMod(now - pausePhaseNanos, config.pauseEveryNanos);
        return intoCycle < config.pauseNanos ? now + config.pauseNanos - intoCycle : now;
    }

    /** When {@code workNanos} of work started at {@code start} is done, the leaf's pauses stretching it. */
    private long finishAt(long start, long workNanos) {
        if (!pauses) {
            return start + workNanos;
        }
        long t = pauseEndAt(start);
        long remaining = workNanos;
        while (true) {
            long intoCycle = Math.floorMod(t - pausePhaseNanos, config.pauseEveryNanos);
            long nextPause = t + config.pauseEveryNanos - intoCycle;
            if (t + remaining <= nextPause) {
                return t + remaining;
            }
            remaining -= nextPause - t;
            t = nextPause + config.pauseNanos;
        }
    }
}
