package io.hedgerow.root.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The writes of one partition, in order: queued, sent a batch at a time to the partition's primary
 * (the first in-sync replica in assignment order), which numbers and logs them, then to every other
 * in-sync replica with those numbers; each write is acknowledged once every in-sync replica has it
 * on disk. One batch is in flight at a time, so every replica sees the writes in the primary's
 * order, and the batch is the group commit (one fsync per replica per batch).
 *
 * <p><b>Replicas out of sync.</b> A replica that fails a write (down, timed out, an error, or a gap
 * in its numbers after it missed writes) leaves the in-sync set, so it no longer blocks writes. When
 * the primary fails, the batch goes to the next in-sync replica, which becomes primary. Between
 * batches, at most once a second per partition, an out-of-sync replica is caught up: it says its
 * last seq, the primary's log supplies what follows, and once it has applied them (with no batch in
 * flight meanwhile) it is in sync again. When no replica is in sync (all were restarted), the one
 * with the highest last seq becomes primary. The very first step, before any batch, asks every
 * replica its last seq ({@link ReplicaSet#reconcile}), so a root started afresh never makes a
 * replica that missed writes the primary.
 *
 * <p><b>New copies.</b> A copy the placement adds ({@link #copies}) joins out of sync and is caught
 * up at once, the same way, between batches; the placement lets it serve searches only once it is
 * in sync. Writes acknowledged meanwhile are on the replicas in sync, and the catch-up, which runs
 * with no batch in flight, brings the copy to the last of them before the next batch includes it.
 *
 * <p><b>Log trimming and snapshots.</b> Every request carries the seq below which every replica's
 * log may be trimmed ({@link ReplicaSet#trimmableSeq}): each leaf drops, at its next Lucene commit,
 * the records at or below both that and its own commit. A replica whose last seq is below what the
 * source's log still holds (a new copy opened from the build, or one more than
 * {@link WriteSettings#retainedLogOps} behind) is caught up from a snapshot instead
 * ({@link ReplicaCatchUp}: file-based recovery, as Elasticsearch's peer recovery copies segment
 * files). The leaves must share the partition store (they share the build); copying the files over
 * the network is not built.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the queue is guarded by this object's
 * monitor, the in-sync set by its {@link ReplicaSet}'s (taken inside this one, never the other way
 * round); leaf answers arrive on event loops and never block. A queue over
 * {@code maxQueuedOps} refuses new writes ({@link DocumentResult.Outcome#OVERLOADED}) rather than
 * buffer without bound. Where this differs from Elasticsearch: the root, not a master, decides the
 * in-sync set, and keeps it in memory only; a write a failed primary logged but never acknowledged
 * is not rolled back on it (there are no primary terms), so such a replica may hold a write the
 * others lack until the document is written again.
 */
final class PartitionWriter {
    private static final long CATCH_UP_EVERY_NANOS = 1_000_000_000L;
    /** Prefix of the error of a write no replica could take. */
    static final String UNAVAILABLE = "unavailable: ";

    /** A queued write and the future its caller waits on. */
    record Pending(WriteOp op, boolean waitForRefresh, CompletableFuture<WriteResult> result) {
    }

    private final int partition;
    private final ReplicaSet replicas;
    private final ReplicaCatchUp catchUps;
    private final WriteSettings settings;
    private final Ticker ticker;
    private final WriteMeters meters;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean busy;
    private boolean closed;
    /** The highest seq acknowledged, and the highest every in-sync replica is known to show searches. */
    private long ackedSeq;
    private long confirmedVisibleSeq;
    private boolean polling;
    private long lastCatchUpNanos;

    /** @param links the partition's replicas, and {@code leaves} the index of each one's leaf in the cluster */
    PartitionWriter(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale, WriteSettings settings,
            Ticker ticker, WriteMeters meters) {
        this.partition = partition;
        this.replicas = new ReplicaSet(partition, links, leaves, stale);
        this.catchUps = new ReplicaCatchUp(replicas, settings, meters);
        this.settings = settings;
        this.ticker = ticker;
        this.meters = meters;
        this.lastCatchUpNanos = ticker.nanoTime() - CATCH_UP_EVERY_NANOS;
        meters.watch(partition, replicas);
    }

    /** Queues a write; false when the queue is full (the caller answers OVERLOADED). */
    synchronized boolean offer(Pending pending) {
        if (closed) {
            pending.result().complete(shuttingDown());
            return true;
        }
        if (queue.size() >= settings.maxQueuedOps()) {
            return false;
        }
        queue.add(pending);
        if (!busy) {
            startNext();
        }
        return true;
    }

    /**
     * Refuses queued and future writes (UNAVAILABLE: nothing of them was acknowledged); a batch in
     * flight ends when its leaves answer or the connections close.
     */
    synchronized void close() {
        closed = true;
        while (!queue.isEmpty()) {
            queue.poll().result().complete(shuttingDown());
        }
    }

    private static WriteResult shuttingDown() {
        return unavailable("the root is shutting down; the write was not acknowledged");
    }

    private static WriteResult unavailable(String why) {
        return WriteResult.newBuilder().setOutcome(WriteOutcome.REJECTED).setError(UNAVAILABLE + why).build();
    }

    /**
     * Whether searches may still miss an acknowledged write of this partition: true until every
     * in-sync replica has answered that its searches see the last acknowledged seq (asked here, at
     * most one question in flight). The caller clears the result cache while any partition says
     * true, and once more after.
     */
    boolean pollVisibility() {
        long target;
        List<Replica> targets;
        synchronized (this) {
            if (ackedSeq <= confirmedVisibleSeq) {
                return false;
            }
            if (polling) {
                return true;
            }
            polling = true;
            target = ackedSeq;
            targets = replicas.inSyncNow();
        }
        List<CompletableFuture<Long>> visible = new ArrayList<>();
        for (Replica replica : targets) {
            visible.add(replica.link.send(ReplicaCatchUp.readLog(request(), Long.MAX_VALUE), settings.timeout()).thenApply(response ->
                    response.getStatus() == Status.OK ? response.getVisibleSeq() : -1L));
        }
        CompletableFuture.allOf(visible.toArray(CompletableFuture[]::new)).whenComplete((ignored, failure) -> {
            synchronized (this) {
                polling = false;
                if (failure == null && visible.stream().allMatch(seq -> seq.join() >= target)) {
                    confirmedVisibleSeq = Math.max(confirmedVisibleSeq, target);
                }
            }
        });
        return true;
    }

    /** Called every second: checks the replicas at start, or catches one up, when nothing else runs. */
    synchronized void tick() {
        if (!busy) {
            startNext();
        }
    }

    /**
     * The placement's copies of the partition are now those on {@code leaves} (in order of
     * preference): a new copy joins out of sync and is caught up at once, between batches; a copy
     * gone leaves the replicas ({@link ReplicaSet#retain}).
     */
    synchronized void copies(int[] leaves, IntFunction<WriteLink> links) {
        if (replicas.retain(leaves, links)) {
            catchUpSoon();
        }
    }

    /** Catches out-of-sync replicas up at the next step rather than within the second (a copy just opened). */
    synchronized void catchUpSoon() {
        lastCatchUpNanos = ticker.nanoTime() - CATCH_UP_EVERY_NANOS;
        if (!busy) {
            startNext();
        }
    }

    ReplicaSet replicas() {
        return replicas;
    }

    /** The replica reads by id go to: the primary, which has every acknowledged write; null when none is in sync. */
    WriteLink primaryLink() {
        Replica primary = replicas.primary();
        return primary == null ? null : primary.link;
    }

    /** Runs the next step; the caller holds the monitor. */
    private void startNext() {
        if (closed) {
            busy = false;
            return;
        }
        busy = true;
        CompletableFuture<Void> step;
        boolean needsCatchUp = !replicas.reconciled() || replicas.inSyncCount() < replicas.size();
        long now = ticker.nanoTime();
        if (needsCatchUp && now - lastCatchUpNanos >= CATCH_UP_EVERY_NANOS) {
            lastCatchUpNanos = now;
            step = catchUps.run(seq -> {
                synchronized (this) {
                    ackedSeq = Math.max(ackedSeq, seq);
                }
            });
        } else if (!queue.isEmpty()) {
            List<Pending> batch = new ArrayList<>();
            while (!queue.isEmpty() && batch.size() < settings.maxBatchOps()) {
                batch.add(queue.poll());
            }
            step = runBatch(batch, now);
        } else {
            busy = false;
            return;
        }
        step.whenComplete((ignored, failure) -> {
            if (failure != null) {
                System.getLogger(PartitionWriter.class.getName()).log(System.Logger.Level.ERROR,
                        "partition " + partition + ": a write step failed", failure);
            }
            synchronized (this) {
                busy = false;
                startNext();
            }
        });
    }

    private CompletableFuture<Void> runBatch(List<Pending> batch, long startNanos) {
        Replica primary = replicas.primary();
        boolean stopping;
        synchronized (this) {
            stopping = closed;
        }
        if (stopping) {
            batch.forEach(pending -> pending.result().complete(shuttingDown()));
            return CompletableFuture.completedFuture(null);
        }
        if (primary == null) {
            batch.forEach(pending -> pending.result().complete(
                    unavailable("no replica of partition " + partition + " is in sync")));
            return CompletableFuture.completedFuture(null);
        }
        WriteRequest.Builder request = request().setPrimary(true)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::waitForRefresh));
        batch.forEach(pending -> request.addOps(pending.op()));
        return primary.link.send(request, settings.timeout()).handle((response, failure) -> {
            String problem = problem(response, failure);
            if (problem != null) {
                replicas.markOutOfSync(primary, problem);
                return runBatch(batch, startNanos);
            }
            return replicate(primary, batch, response, startNanos);
        }).thenCompose(step -> step);
    }

    private WriteRequest.Builder request() {
        return replicas.request(settings.retainedLogOps());
    }

    /** Null when the answer is OK, else what went wrong. */
    private static String problem(WriteResponse response, Throwable failure) {
        if (failure != null) {
            return String.valueOf(failure.getMessage());
        }
        return response.getStatus() == Status.OK ? null : response.getStatus() + ": " + response.getError();
    }

    private CompletableFuture<Void> replicate(Replica primary, List<Pending> batch, WriteResponse numbered,
            long startNanos) {
        WriteRequest.Builder copy = request().setPrimary(false)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::waitForRefresh));
        for (int i = 0; i < batch.size(); i++) {
            long seq = numbered.getResults(i).getSeq();
            if (seq > 0) {
                copy.addOps(batch.get(i).op().toBuilder().setSeq(seq));
            }
        }
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        if (copy.getOpsCount() > 0) {
            for (Replica replica : replicas.inSyncNow()) {
                if (replica == primary) {
                    continue;
                }
                copies.add(replica.link.send(copy.clone(), settings.timeout()).handle((response, failure) -> {
                    String problem = problem(response, failure);
                    if (problem != null) {
                        replicas.markOutOfSync(replica, problem);
                    }
                    return null;
                }));
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenRun(() -> {
            replicas.acknowledged(numbered.getLastSeq());
            synchronized (this) {
                ackedSeq = Math.max(ackedSeq, numbered.getLastSeq());
            }
            meters.batch(ticker.nanoTime() - startNanos);
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result().complete(numbered.getResults(i));
            }
        });
    }
}
