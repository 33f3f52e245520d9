package io.hedgerow.leaf.server;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Status;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.apache.lucene.index.QueryTimeout;

/**
 * One request at the leaf, from arrival to answer: a search of one partition, or a fetch. It is
 * also the work's {@link QueryTimeout}, so a cancel or a passed deadline stops running work at
 * its next check.
 *
 * <p><b>Life and answers.</b> A task is QUEUED when it arrives. Exactly one side wins it: a worker
 * that takes it to run it (QUEUED to RUNNING), or a cancel that drops it (QUEUED to DROPPED), or a
 * full queue (QUEUED to DONE, answered BUSY), or its deadline passing while it waits (QUEUED to DONE:
 * the scheduler finds it expired at dequeue and runs {@link #expireQueued()} instead, answering
 * EXPIRED; the work never starts). A cancel that wins answers CANCELLED at once, from the thread that
 * handled the cancel, and takes the task out of its queue. A worker that wins answers its result. A root's cancel of a running task asks it to stop at its next check; it
 * then answers what it found, {@code cut_short}. So every task answers exactly once, except that
 * the tasks of a connection that closed answer nothing (nobody is left to read it).
 *
 * <p><b>Slices.</b> A long search may yield its worker between slices ({@link #yieldWorker(boolean)}): it
 * queues its continuation ({@link #resume()}) behind the work waiting and is PARKED, in flight,
 * until a worker takes the continuation (PARKED to RUNNING) or a root's cancel drops it (PARKED to
 * DONE: the continuation leaves the queue and the task answers CANCELLED at once, from the
 * cancelling thread). A deadline that passes while it waits is seen by the next slice's first
 * check, which answers what was found, cut short.
 *
 * <p><b>Injected faults</b> (for tests and demos) hold the task on its worker, parked, as a GC
 * pause or a slow disk would hold a real search. That is the point: an occupied worker takes
 * nothing else from the shared queue, so requests behind it wait and the queue backs up, which is
 * what real interference does to a leaf. (Delaying only the answer, with a timer, would leave the
 * worker free: a slow network, not a slow leaf.) A <em>stall</em> holds the worker before the task
 * starts, so the task is still QUEUED and a cancel drops it (and wakes the worker); a stall also
 * holds a running search at its next check. A <em>delay</em> holds a task that started, as service
 * time; a cancel or the deadline ends it and the search that follows stops at its first check
 * ({@code cut_short}). Every hold ends at the deadline, and when its fault is cleared. Nothing ever waits on an event loop.
 *
 * <p><b>Assumptions and guarantees.</b> {@link #run()} runs once, on a worker, and then each queued
 * {@link #resume()} once, in turn (the scheduler's lock orders each hand-over); the cancel methods
 * may be called from any thread at any time, concurrently with each other and with {@code run}.
 * The state moves by compare-and-set out of QUEUED, so exactly one side wins. A cancel during a hold
 * ends the hold at once: the worker publishes itself in {@link FaultHolds} before it checks the
 * state or the stop flag, and a cancel sets them before it wakes the held worker, so one of the
 * two always sees the other.
 */
abstract class LeafTask implements Runnable, QueryTimeout {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int DROPPED = 3;
    /** Between slices: its continuation waits in the queue, and a cancel may still take it. */
    private static final int PARKED = 4;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LeafTask.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What a root's cancel did. */
    enum CancelOutcome {
        /** The task (or the continuation of a sliced search) was queued: dropped and answered CANCELLED. */
        DROPPED_QUEUED,
        /** The task was running: it stops at its next check and answers cut short. */
        STOPPED_RUNNING,
        /** The task has answered already. */
        TOO_LATE
    }

    private final long requestId;
    private final TaskKey key;
    private final OutboundBatcher replyTo;
    private final long receivedNanos;
    /** Absolute deadline on the leaf's ticker; meaningful only when {@link #hasDeadline}. */
    private final long deadlineNanos;
    private final boolean hasDeadline;
    protected final LeafContext leaf;
    @SuppressWarnings("unused") // through STATE
    private volatile int state = QUEUED;
    /** The continuation a sliced search queues when it yields; one object, so a cancel can take it out. */
    private final Runnable continuation = this::resume;
    private volatile boolean stopRequested;
    /** Injected faults' holds of this task's worker. */
    private final FaultHolds holds = new FaultHolds(this);

    LeafTask(long requestId, long budgetNanos, OutboundBatcher replyTo, LeafContext leaf, long receivedNanos) {
        this.requestId = requestId;
        this.key = new TaskKey(replyTo.rootId(), requestId);
        this.replyTo = replyTo;
        this.leaf = leaf;
        this.receivedNanos = receivedNanos;
        this.hasDeadline = budgetNanos > 0;
        this.deadlineNanos = receivedNanos + budgetNanos;
    }

    final long requestId() {
        return requestId;
    }

    /** True until a worker takes it or a cancel, a refusal or its expiry settles it. */
    final boolean isQueued() {
        return state == QUEUED;
    }

    /** The root that sent it and its request id: how cancels find it. */
    final TaskKey key() {
        return key;
    }

    final OutboundBatcher replyTo() {
        return replyTo;
    }

    /**
     * A root's cancel: drops the task if queued or parked between slices (answering CANCELLED), or
     * stops it if running.
     *
     * <p>The stop flag is set before the state is read: a worker may park the task (RUNNING to
     * PARKED) at any moment, and one that parks it after the flag is set resumes it with the flag
     * set, so its first check stops it. (Reading the state first and setting the flag only when it
     * said RUNNING lost the cancel of a task that parked in between: it then looked neither parked
     * nor running, and ran to its end.)
     */
    final CancelOutcome cancel() {
        if (dropIfQueued()) {
            return CancelOutcome.DROPPED_QUEUED;
        }
        stopRequested = true;
        if (STATE.compareAndSet(this, PARKED, DONE)) {
            dropParked();
            replyTo.send(refusal(Status.CANCELLED, "cancelled between slices"));
            return CancelOutcome.DROPPED_QUEUED;
        }
        afterParkedCheck();
        int now = state;
        // Woken only after the state is read: a held worker woken first could finish, cut short,
        // before the read, and the cancel that stopped it would count itself too late.
        wakeHeldWorker();
        // PARKED here: it parked after the compare-and-set above, with the flag already set.
        return now == RUNNING || now == PARKED ? CancelOutcome.STOPPED_RUNNING : CancelOutcome.TOO_LATE;
    }

    /**
     * A seam for tests: {@link #cancel()} calls it between its attempt to drop a parked task and its
     * reading of the state, the window in which a worker parking the task once made the cancel
     * lose. Does nothing.
     */
    void afterParkedCheck() {
    }

    /** Drops the task if it is still queued, and answers CANCELLED; false (and nothing done) otherwise. */
    final boolean dropIfQueued() {
        if (!drop()) {
            return false;
        }
        replyTo.send(refusal(Status.CANCELLED, "cancelled while queued"));
        return true;
    }

    /** Its connection closed: drops it if queued or parked, or stops it if running, without an answer. */
    final void abandon() {
        stopRequested = true; // first, as in cancel(): a task that parks after this resumes stopped
        wakeHeldWorker();
        if (STATE.compareAndSet(this, PARKED, DONE)) {
            dropParked();
            return;
        }
        drop();
    }

    /** The queue had no room: true if the caller should answer {@link #busy()}, false if a cancel answered first. */
    final boolean refuse() {
        if (!STATE.compareAndSet(this, QUEUED, DONE)) {
            return false;
        }
        leaf.inflight().remove(this);
        return true;
    }

    private boolean drop() {
        if (!STATE.compareAndSet(this, QUEUED, DROPPED)) {
            return false;
        }
        leaf.inflight().remove(this);
        leaf.scheduler().remove(this, priority()); // its slot is free for the next request at once
        wakeHeldWorker(); // a worker held by a stall before it could start the task
        return true;
    }

    /** Takes the parked continuation of a task that this thread won out of the queue, and lets go of its work. */
    private void dropParked() {
        leaf.scheduler().remove(continuation, priority());
        leaf.inflight().remove(this);
        parkedDropped();
    }

    /**
     * Yields the worker between slices: queues the continuation behind the waiting work. From then
     * on a cancel may drop the task (answering CANCELLED at once) until a worker takes the
     * continuation.
     *
     * @param expensive whether the continuation waits for the expensive lane
     *
     * @return true when the caller must touch nothing of the task any more and answer nothing (its
     *         continuation is queued, or a cancel took it); false when the scheduler closed and the
     *         caller carries on here
     */
    final boolean yieldWorker(boolean expensive) {
        state = PARKED; // before the hand-over: the worker that resumes and any cancel see it
        if (leaf.scheduler().requeue(continuation, priority(), expensive)) {
            return true;
        }
        return !STATE.compareAndSet(this, PARKED, RUNNING);
    }

    /**
     * A cancel (or its connection closing) dropped the task while its continuation waited: let go
     * of what the work holds. Runs on the cancelling thread, which owns the task then.
     */
    void parkedDropped() {
    }

    private void wakeHeldWorker() {
        holds.wake();
    }

    /**
     * Answers EXPIRED if the task is still queued: the scheduler found its deadline passed when a
     * worker reached it, and runs this instead of the task.
     */
    final void expireQueued() {
        if (!STATE.compareAndSet(this, QUEUED, DONE)) {
            return; // a cancel answered it first
        }
        leaf.counters().expiredAtDequeue.increment();
        leaf.inflight().remove(this);
        replyTo.send(refusal(Status.EXPIRED, "deadline passed while queued"));
    }

    /** The absolute deadline on the leaf's ticker, or {@link ClassQueues#NO_DEADLINE}. */
    final long deadlineNanos() {
        return hasDeadline ? deadlineNanos : ClassQueues.NO_DEADLINE;
    }

    @Override
    public final boolean shouldExit() {
        if (stopRequested || expiredAt(leaf.ticker().nanoTime())) {
            return true;
        }
        long stallNanos = leaf.faults().stallRemainingNanos();
        return stallNanos > 0 && holds.runningThroughStall(stallNanos);
    }

    /** Whether a cancel (or its connection closing) asked this running task to stop. */
    final boolean stopRequested() {
        return stopRequested;
    }

    final boolean expiredAt(long nowNanos) {
        return hasDeadline && nowNanos - deadlineNanos >= 0;
    }

    /** Whether it has a deadline ({@link #deadlineNanos()} is then meaningful). */
    final boolean hasDeadline() {
        return hasDeadline;
    }

    @Override
    public final void run() {
        if (state != QUEUED) {
            return; // dropped while queued; whoever dropped it has answered
        }
        boolean yielded = false;
        boolean tagged = false;
        try {
            holds.queuedThroughStall();
            if (!STATE.compareAndSet(this, QUEUED, RUNNING)) {
                return;
            }
            long startNanos = leaf.ticker().nanoTime();
            // The task's service time counts from here, and its CPU time from just after: read the
            // other way round, the CPU time would hold work outside the service time (it came out
            // 1 us above it at the median in LeafLatencyHttpTest), which it must stay within.
            leaf.scheduler().cpuTime().serviceStarts();
            tagged = RequestLog.tag(logRequestId());
            if (expiredAt(startNanos)) {
                leaf.counters().expiredAtDequeue.increment();
                answer(refusal(Status.EXPIRED, "deadline passed while queued"));
                return;
            }
            started();
            long delayNanos = leaf.faults().nextDelayNanos();
            if (delayNanos > 0) {
                leaf.counters().delaysInjected.increment();
                holds.running(startNanos + delayNanos);
            }
            Frame answer = execute(startNanos, startNanos - receivedNanos);
            if (answer == null) {
                yielded = true; // its continuation is queued, and may be running already: hands off
                return;
            }
            answer(answer);
        } finally {
            if (!yielded) {
                settle();
            }
            RequestLog.untag(tagged);
        }
    }

    /**
     * Runs the continuation of a task that yielded its worker after a slice ({@link #execute} or
     * this returned null), on whichever worker took it from the queue. The task stayed RUNNING
     * while queued, so a cancel or a deadline that came meanwhile is seen at the work's first check.
     */
    final void resume() {
        if (!STATE.compareAndSet(this, PARKED, RUNNING)) {
            return; // a cancel dropped it while it waited, and answered
        }
        boolean tagged = RequestLog.tag(logRequestId());
        try {
            resumeTagged();
        } finally {
            RequestLog.untag(tagged);
        }
    }

    private void resumeTagged() {
        boolean yielded = false;
        try {
            Frame answer = proceed();
            if (answer == null) {
                yielded = true;
                return;
            }
            answer(answer);
        } finally {
            if (!yielded) {
                settle();
            }
        }
    }

    private void answer(Frame answer) {
        // Before the send: a cancel that finds DONE is too late, one that finds RUNNING stopped it.
        state = DONE;
        replyTo.send(answer);
        if (RequestLog.enabled()) {
            RequestLog.answered(getClass().getSimpleName(), requestId, answer, receivedNanos, leaf.ticker().nanoTime());
        }
    }

    private void settle() {
        if (state == RUNNING) {
            state = DONE; // only if the work threw: a bug, answered by nobody
        }
        leaf.inflight().remove(this);
    }

    /** The HTTP request's id the root sent with it, for the leaf's log lines ({@link RequestLog}); empty for none. */
    String logRequestId() {
        return "";
    }

    /** Its scheduling class, a {@link io.hedgerow.common.wire.proto.Priority} number (0 the highest). */
    abstract int priority();

    /**
     * What the root expects this task to cost ({@code SearchRequest.cost_hint}); 0 when unknown. A
     * task whose hint is past the expensive threshold is queued in the expensive lane on arrival.
     */
    long costHint() {
        return 0;
    }

    /** Called once a worker has taken the task to run it, before any work (and any injected delay). */
    void started() {
    }

    /**
     * Does the work and builds the answer, or does a slice of it and yields.
     *
     * @param startNanos when a worker took the task
     * @param queueNanos how long it waited for a worker
     * @return the answer; or null when the task put its continuation in the scheduler's queue (a
     *         {@link #resume()} of this task), which will answer. After queueing it the task
     *         must touch nothing: another worker may be running the continuation already.
     */
    abstract Frame execute(long startNanos, long queueNanos);

    /** The work after a yield: as {@link #execute}, null when it yielded again. */
    Frame proceed() {
        throw new IllegalStateException("proceed: task " + requestId + " never yields (expected: a task that does)");
    }

    /** An answer that says no work was done, and why. */
    abstract Frame refusal(Status status, String detail);

    /** The answer to send at once when the queue is full. */
    final Frame busy() {
        return refusal(Status.BUSY, "the leaf's " + SchedulingConfig.className(SchedulingConfig.classOf(priority()))
                + " queue is full");
    }
}
