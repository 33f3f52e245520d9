package io.hedgerow.root.admission;

import io.hedgerow.api.QueryPriority;
import io.hedgerow.common.time.Ticker;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * Admission control at the root: a bound on the searches in flight, learnt from their latency, and
 * a bounded queue in front of it. Without a bound, a root offered twice its capacity sends
 * everything on, leaves fill their queues and answer busy, retries and backups pile on, and nearly
 * every result comes back late or tainted.
 *
 * <p><b>Over the limit, a search waits.</b> A search that finds the limit reached waits at the root
 * in a FIFO ({@link AdmissionQueue}) and starts when a search in flight ends, on the thread that
 * ended it, through the {@link Waiter} it left (the HTTP layer hands it to its own event loop: the
 * queue holds callbacks, no thread waits). It is refused at once (a 503 with {@code Retry-After})
 * only when the queue is full, when its deadline would pass before its turn, or when the queue delay
 * keeps growing ({@link QueueDelayRule}, CoDel decided at arrival): never after having waited. A
 * waiting search whose client goes away leaves the queue ({@link Ticket#cancel}). So a closed loop
 * of more clients than the limit is served, slower, instead of being refused three times in four
 * (issue 30), while an open loop over capacity is still shed at once.
 *
 * <p>The limit, and the count of searches in flight held to it, are the {@link ConcurrencyGate}'s:
 * learnt from latency by one of Netflix's concurrency-limits algorithms ({@link
 * AdmissionSettings.Algorithm}), batch searches held to {@code batchShare} of it, lowered by leaves
 * that answer busy ({@link #leafBusy()}). Queued, interactive searches start first and batch ones
 * get {@code batchShare} of the queue. Each admitted search reports when it ends ({@link
 * Permit#release}): its latency from the first byte of its request, or from when it left the queue
 * if it waited (or a drop when it failed for want of capacity: a timeout, no partition answering).
 * Time queued at the root is left out of the sample on purpose: the limit is what it measures
 * against, so counting it would read the limit's own queue as the cluster's load, and Vegas would
 * sink to its floor and lengthen the queue further. Searches that measure nothing about the
 * cluster's load (served from the cache, refused as bad or blocklisted) are left out, so a cache
 * hit's few microseconds do not pass for an idle cluster.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: every event loop admits and releases searches
 * of its own connections. Taking a place is the gate's compare-and-set on one counter, so the limit
 * is never exceeded; a permit's release is a compare-and-set of its own, so releases racing on
 * one permit count once. While nothing waits, admission takes no lock; the queue is
 * guarded by one lock, taken only over the limit, by a release while something waits, and by a
 * cancel. A release that frees a place while a search waits always starts one: both the enqueuer and
 * the releaser look at the other's side after changing their own. Waiters are called outside the
 * lock. Time comes from the injected {@link Ticker} (queue times) and from the caller (latency
 * samples, on the same ticker): tests drive both with a manual ticker.
 */
public final class AdmissionControl {
    /** How an admitted search ended, for the limit. */
    public enum Outcome {
        /** It ran (complete or tainted): its latency is a sample. */
        SUCCESS,
        /** It failed for want of capacity (timed out, nothing answered): a drop. */
        DROPPED,
        /** It says nothing about load (a cache hit, a bad or blocklisted query): no sample. */
        IGNORED
    }

    /** Starts a search that waited in the queue. Called once, on the thread that freed its place. */
    @FunctionalInterface
    public interface Waiter {
        /**
         * Its turn came: run it and release {@code permit} when it ends. Must not block (it runs on
         * another search's thread): hand the work to the search's own thread.
         *
         * @param queuedNanos how long it waited in the queue
         */
        void start(Permit permit, long queuedNanos);
    }

    /** What {@link #acquire} decided. */
    public sealed interface Admission permits Admitted, Queued, Refused {
    }

    /** Run it now; release the permit when it ends. */
    public record Admitted(Permit permit) implements Admission {
    }

    /** It waits: its waiter is called when its turn comes; cancel the ticket if its client goes away. */
    public record Queued(Ticket ticket) implements Admission {
    }

    /** Refused at once (counted). */
    public record Refused(Refusal reason) implements Admission {
    }

    private static final System.Logger LOG = System.getLogger(AdmissionControl.class.getName());

    private final AdmissionSettings settings;
    private final ConcurrencyGate gate;
    private final Ticker ticker;
    private final Map<QueryPriority, LongAdder> rejected = new EnumMap<>(QueryPriority.class);
    private final Map<Refusal, LongAdder> refusals = new EnumMap<>(Refusal.class);
    private final ReentrantLock queueLock = new ReentrantLock();
    /** Guarded by queueLock. */
    private final AdmissionQueue<Waiter> queue;
    /** The queue's size, written under queueLock, read without it. */
    private final AtomicInteger queued = new AtomicInteger();
    private final LongAdder waited = new LongAdder();
    private final LongAdder waitedNanos = new LongAdder();
    private final LongAdder abandoned = new LongAdder();
    private volatile long lastWaitNanos;
    private volatile IntSupplier openConnections = () -> 0;

    /** On the system ticker. */
    public AdmissionControl(AdmissionSettings settings) {
        this(settings, Ticker.system());
    }

    /** @param ticker the clock of queue times; latency samples must come from the same one */
    public AdmissionControl(AdmissionSettings settings, Ticker ticker) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.gate = new ConcurrencyGate(settings);
        this.queue = new AdmissionQueue<>(settings, gate::inflight);
        for (QueryPriority priority : QueryPriority.values()) {
            rejected.put(priority, new LongAdder());
        }
        for (Refusal reason : Refusal.values()) {
            refusals.put(reason, new LongAdder());
        }
    }

    /**
     * Where the queue's capacity comes from: about one waiting search per open HTTP connection
     * ({@link AdmissionSettings#queueCapacity}). The HTTP server sets it once when it starts; until
     * then the capacity is as for no connection.
     */
    public void queueCapacityFrom(IntSupplier connections) {
        this.openConnections = Objects.requireNonNull(connections, "connections");
    }

    /** Searches that may wait now. */
    public int queueCapacity() {
        return settings.queueCapacity(openConnections.getAsInt());
    }

    public AdmissionSettings settings() {
        return settings;
    }

    /**
     * Admits a search if the limit allows it, never queueing it: a search over the limit is refused
     * ({@link Refusal#QUEUE_FULL}, counted).
     *
     * @param startNanos when the search's request began to arrive, on the ticker
     * @return its permit, to release when it ends; null when it is refused
     */
    public Permit tryAcquire(QueryPriority priority, long startNanos) {
        Permit permit = tryTake(priority, startNanos);
        if (permit == null) {
            refuse(priority, Refusal.QUEUE_FULL);
        }
        return permit;
    }

    /**
     * Admits a search now, queues it, or refuses it at once (see the class comment). A queued
     * search's {@code waiter} may be called before this returns, on this thread.
     *
     * @param startNanos    when the search's request began to arrive, on the ticker: its latency
     *                      sample starts there if it is admitted now (from when it leaves the queue if it waits)
     * @param deadlineNanos when its time is up, on the ticker: it is refused when the expected
     *                      queue delay would outlast it
     */
    public Admission acquire(QueryPriority priority, long startNanos, long deadlineNanos, Waiter waiter) {
        Objects.requireNonNull(waiter, "waiter");
        if (queued.get() == 0) {
            Permit permit = tryTake(priority, startNanos);
            if (permit != null) {
                return new Admitted(permit);
            }
        }
        AdmissionQueue.Entry<Waiter> entry = new AdmissionQueue.Entry<>(waiter, priority, deadlineNanos);
        queueLock.lock();
        try {
            if (queue.isEmpty()) {
                // Nothing waits: a place freed since the look above goes to this search (FIFO kept).
                Permit permit = tryTake(priority, startNanos);
                if (permit != null) {
                    return new Admitted(permit);
                }
            }
            Refusal refusal = queue.offer(entry, queueCapacity(), ticker.nanoTime());
            if (refusal != null) {
                refuse(priority, refusal);
                return new Refused(refusal);
            }
            queued.set(queue.size());
        } finally {
            queueLock.unlock();
        }
        startWaiting(); // a place may have freed up between the look above and the enqueue
        return new Queued(new Ticket(entry));
    }

    private void refuse(QueryPriority priority, Refusal reason) {
        rejected.get(priority).increment();
        refusals.get(reason).increment();
    }

    private Permit tryTake(QueryPriority priority, long startNanos) {
        int taken = gate.reserve(priority);
        return taken == 0 ? null : new Permit(startNanos, taken);
    }

    /**
     * Starts waiting searches while places are free: takes them under the lock, calls them after. A
     * waiter that throws (a bug: it must only hand the search to its thread) gives its place back and
     * is logged; the others still start, and the release that freed the place is not failed by it.
     */
    private void startWaiting() {
        List<Start> starts = null;
        queueLock.lock();
        try {
            while (!queue.isEmpty()) {
                long now = ticker.nanoTime();
                int[] taken = new int[1];
                AdmissionQueue.Entry<Waiter> next = queue.poll(priority -> (taken[0] = gate.reserve(priority)) > 0, now);
                if (next == null) {
                    break;
                }
                long waitNanos = now - next.enqueuedNanos();
                waited.increment();
                waitedNanos.add(waitNanos);
                if (starts == null) {
                    starts = new ArrayList<>();
                }
                // Its latency sample starts now, not at its first byte: see the class comment.
                starts.add(new Start(next.waiter(), new Permit(now, taken[0]), waitNanos));
            }
            lastWaitNanos = queue.lastWaitNanos();
            queued.set(queue.size());
        } finally {
            queueLock.unlock();
        }
        if (starts == null) {
            return;
        }
        for (Start start : starts) {
            try {
                start.waiter().start(start.permit(), start.waitNanos());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a queued search could not be started; its place goes to the next", e);
                start.permit().release(Outcome.IGNORED, ticker.nanoTime());
            }
        }
    }

    private record Start(Waiter waiter, Permit permit, long waitNanos) {
    }

    /** Searches allowed in flight now; {@link Integer#MAX_VALUE} when admission is off. */
    public int limit() {
        return gate.limit();
    }

    /** Whether admission control is on. */
    public boolean enabled() {
        return gate.enabled();
    }

    /** Searches admitted and not yet ended. */
    public int inflight() {
        return gate.inflight();
    }

    /** Searches waiting in the queue now. */
    public int queued() {
        return queued.get();
    }

    /** Searches refused so far for {@code reason}. */
    public long refused(Refusal reason) {
        return refusals.get(reason).sum();
    }

    /** Searches that waited in the queue and then started. */
    public long waited() {
        return waited.sum();
    }

    /** The time those searches waited, in total. */
    public long waitedNanos() {
        return waitedNanos.sum();
    }

    /** The queue delay of the last search to leave the queue. */
    public long lastWaitNanos() {
        return lastWaitNanos;
    }

    /** Queued searches taken out of the queue because their client went away. */
    public long abandoned() {
        return abandoned.sum();
    }

    public long admitted() {
        return gate.admitted();
    }

    public long rejected(QueryPriority priority) {
        return rejected.get(priority).sum();
    }

    /** Searches that ended as drops (failed, or charged with a busy answer). */
    public long drops() {
        return gate.drops();
    }

    /** A leaf answered busy: the next search to end counts as a drop (see the class comment). */
    public void leafBusy() {
        gate.leafBusy();
    }

    /** A queued search's place in the queue. */
    public final class Ticket {
        private final AdmissionQueue.Entry<Waiter> entry;

        private Ticket(AdmissionQueue.Entry<Waiter> entry) {
            this.entry = entry;
        }

        /**
         * Takes the search out of the queue (its client went away): its waiter will not be called.
         *
         * @return false when it had already started (or was cancelled)
         */
        public boolean cancel() {
            queueLock.lock();
            try {
                boolean removed = queue.remove(entry);
                if (removed) {
                    abandoned.increment();
                    lastWaitNanos = queue.lastWaitNanos();
                    queued.set(queue.size());
                }
                return removed;
            } finally {
                queueLock.unlock();
            }
        }
    }

    /** One admitted search. Release it exactly once; later releases are ignored. */
    public final class Permit {
        private final long startNanos;
        private final int inflightAtStart;
        /** Set by the first release (a compare-and-set: releases may race from two threads). */
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit(long startNanos, int inflightAtStart) {
            this.startNanos = startNanos;
            this.inflightAtStart = inflightAtStart;
        }

        /**
         * The search ended.
         *
         * @param endNanos when, on the ticker {@code startNanos} came from
         */
        public void release(Outcome outcome, long endNanos) {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            gate.released(startNanos, inflightAtStart, outcome, endNanos);
            if (queued.get() > 0) {
                startWaiting();
            }
        }
    }
}
