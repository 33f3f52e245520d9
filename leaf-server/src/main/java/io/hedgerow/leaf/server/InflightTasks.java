package io.hedgerow.leaf.server;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Cancel;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leaf's queued and running tasks by {@link TaskKey} (root id and request id), so a cancel can
 * find them, and the cancels that came before their request. A request id is unique only among
 * its root's; the root id, from the root's Hello, tells two roots' requests apart.
 *
 * <p>A root's cancel ({@code if_queued} false) drops a queued task or stops a running one. A twin's
 * cancel ({@code if_queued} true, from another leaf whose copy of a tied request started) drops only
 * a queued task; one that runs already goes on (both copies ran). A twin's cancel may overtake its
 * request (they come from different senders), so a cancel for an unknown id leaves a tombstone, and
 * a tied request that arrives while its tombstone lives is answered CANCELLED without being queued.
 * Tombstones are bounded ({@link #MAX_TOMBSTONES}) and short-lived ({@link #TOMBSTONE_TTL}): the
 * twin's request arrives within a round trip or not at all. A twin's cancel stamped with its send
 * time has its delay recorded ({@link LeafCounters#twinCancelDelay}), on this leaf's wall clock.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; no method blocks, so event loops call them.
 * A twin's cancel and its request may race on two event loops: the cancel writes its tombstone and
 * then looks for the task again, the request registers its task and then looks for a tombstone, so
 * at least one of them sees the other, and the task's own state makes sure only one answers.
 * Only requests that have a twin look for a tombstone: others pay nothing for this.
 */
final class InflightTasks {
    static final int MAX_TOMBSTONES = 100_000;
    static final Duration TOMBSTONE_TTL = Duration.ofSeconds(5);

    private final ConcurrentHashMap<TaskKey, LeafTask> tasks = new ConcurrentHashMap<>();
    private final Cache<TaskKey, Boolean> tombstones;
    private final LeafCounters counters;
    private final InstantSource wallClock;

    /** @param wallClock reads the time a twin's cancel arrived, to compare with its sender's stamp */
    InflightTasks(Ticker ticker, LeafCounters counters, InstantSource wallClock) {
        this.counters = counters;
        this.wallClock = wallClock;
        this.tombstones = Caffeine.newBuilder()
                .maximumSize(MAX_TOMBSTONES)
                .expireAfterWrite(TOMBSTONE_TTL)
                .ticker(ticker::nanoTime)
                // Upkeep on the calling event loop, a little at a time: no pool threads.
                .executor(Runnable::run)
                .build();
    }

    /**
     * Registers a task that just arrived. A tied request whose twin's cancel came first is answered
     * CANCELLED instead.
     *
     * @param tied whether the request names a twin
     * @return true if the task should be queued
     */
    boolean register(LeafTask task, boolean tied) {
        tasks.put(task.key(), task);
        if (tied && tombstones.asMap().remove(task.key()) != null) {
            if (task.dropIfQueued()) {
                counters.tombstonedDrops.increment();
            }
            return false;
        }
        return true;
    }

    void remove(LeafTask task) {
        tasks.remove(task.key(), task);
    }

    /**
     * Obeys a cancel from a root or from a twin's leaf (see the class comment).
     *
     * @param rootId the root whose request it names: the root's own id for a root's cancel, the
     *               cancel's {@code root_id} for a twin's
     */
    void cancel(long rootId, Cancel cancel) {
        TaskKey key = new TaskKey(rootId, cancel.getRequestId());
        LeafTask task = tasks.get(key);
        if (!cancel.getIfQueued()) {
            counters.rootCancelsReceived.increment();
            if (task == null) {
                counters.rootCancelsTooLate.increment();
                return;
            }
            switch (task.cancel()) {
                case DROPPED_QUEUED -> counters.rootCancelsDroppedQueued.increment();
                case STOPPED_RUNNING -> counters.rootCancelsStoppedRunning.increment();
                case TOO_LATE -> counters.rootCancelsTooLate.increment();
            }
            return;
        }
        // Read on arrival, recorded last: the outcome counters move together with "received".
        long arrivedUnixNanos = cancel.getSentAtUnixNanos() != 0 ? unixNanos(wallClock.instant()) : 0;
        counters.twinCancelsReceived.increment();
        if (task == null) {
            tombstones.put(key, Boolean.TRUE);
            task = tasks.get(key); // the request may have registered meanwhile
            if (task == null) {
                counters.twinCancelsRemembered.increment();
                recordDelay(cancel, arrivedUnixNanos);
                return;
            }
            tombstones.invalidate(key);
        }
        if (task.dropIfQueued()) {
            counters.twinCancelsDroppedQueued.increment();
        } else {
            counters.twinCancelsBothRan.increment();
        }
        recordDelay(cancel, arrivedUnixNanos);
    }

    private void recordDelay(Cancel cancel, long arrivedUnixNanos) {
        if (cancel.getSentAtUnixNanos() != 0) {
            counters.twinCancelDelay(arrivedUnixNanos - cancel.getSentAtUnixNanos());
        }
    }

    /** Drops or stops, without answers, every task that answers to {@code replyTo}, whose connection closed. */
    void abandonAll(OutboundBatcher replyTo) {
        tasks.values().forEach(task -> {
            if (task.replyTo() == replyTo) {
                task.abandon();
            }
        });
    }

    /** Tasks queued, parked or running (and tied ones waiting out their grace), for a drain to wait on. */
    int size() {
        return tasks.size();
    }

    /** Nanoseconds since the Unix epoch, as cancels are stamped. */
    static long unixNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    /** Tombstones alive now (approximately: expired ones may linger until the cache's next upkeep). */
    long tombstones() {
        return tombstones.estimatedSize();
    }
}
