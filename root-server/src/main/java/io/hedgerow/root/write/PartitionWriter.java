package io.hedgerow.root.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.root.cluster.StaleReplicas;
import java.io.IOException;
import java.util.ArrayDeque;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * primary's log still holds (a new copy opened from the build, or one more than
 * {@link WriteSettings#retainedLogOps} behind) is caught up from a snapshot instead (file-based
 * recovery, as Elasticsearch's peer recovery copies segment files): the primary commits and
 * publishes the commit in the partition store as hard links, the replica replaces its copy with it,
 * and the primary's log above the snapshot follows. The leaves must share the partition store (they
 * share the build); copying the files over the network is not built.
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
    private static final int CATCH_UP_CHUNK_OPS = 256;
    /** Prefix of the error of a write no replica could take. */
    static final String UNAVAILABLE = "unavailable: ";

    /** A queued write and the future its caller waits on. */
    record Pending(WriteOp op, boolean waitForRefresh, CompletableFuture<WriteResult> result) {
    }

    private final int partition;
    private final ReplicaSet replicas;
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
            visible.add(replica.link.send(readLog(Long.MAX_VALUE), settings.timeout()).thenApply(response ->
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
            step = catchUp();
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

    /** A request to this partition's replicas, with the seq their logs may be trimmed to. */
    private WriteRequest.Builder request() {
        return WriteRequest.newBuilder().setPartition(partition)
                .setTrimmableSeq(replicas.trimmableSeq(settings.retainedLogOps()));
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

    /** A replica's answer to "what is your last seq" (-1: none, it did not answer). */
    private record Probe(long lastSeq, long trimmedSeq) {
        static final Probe NONE = new Probe(-1, -1);
    }

    /**
     * Compares the replicas at start ({@link ReplicaSet#reconcile}), then brings every reachable
     * out-of-sync replica up to the primary: from the primary's log when it still holds every write
     * the replica lacks, else from a snapshot of the primary's copy, then its log above it.
     */
    private CompletableFuture<Void> catchUp() {
        List<Replica> probed = replicas.members();
        List<CompletableFuture<Probe>> answers = new ArrayList<>();
        for (Replica replica : probed) {
            answers.add(probe(replica.link));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((ignored, f) -> {
            Probe[] probes = answers.stream().map(a -> a.isCompletedExceptionally() ? Probe.NONE : a.join())
                    .toArray(Probe[]::new);
            long[] seqs = Arrays.stream(probes).mapToLong(Probe::lastSeq).toArray();
            if (!replicas.reconciled()) {
                replicas.reconcile(probed, seqs);
            }
            // The source: the first replica in sync that answered (every one holds every acknowledged
            // write); when none is in sync, the most advanced reachable replica leads.
            int sourceIndex = -1;
            for (int r = 0; r < probed.size() && sourceIndex < 0; r++) {
                if (seqs[r] >= 0 && replicas.inSync(probed.get(r))) {
                    sourceIndex = r;
                }
            }
            if (sourceIndex < 0 && replicas.primary() == null) {
                for (int r = 0; r < seqs.length; r++) {
                    if (seqs[r] >= 0 && (sourceIndex < 0 || seqs[r] > seqs[sourceIndex])) {
                        sourceIndex = r;
                    }
                }
                if (sourceIndex >= 0) {
                    replicas.markInSync(probed.get(sourceIndex), seqs[sourceIndex]);
                }
            }
            if (sourceIndex < 0) {
                return CompletableFuture.<Void>completedFuture(null); // the in-sync replicas are unreachable: later
            }
            synchronized (this) {
                // What an in-sync replica holds was acknowledged by some root, maybe an earlier one.
                ackedSeq = Math.max(ackedSeq, seqs[sourceIndex]);
            }
            CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
            Replica source = probed.get(sourceIndex);
            long sourceTrimmed = probes[sourceIndex].trimmedSeq();
            for (int r = 0; r < probed.size(); r++) {
                Replica replica = probed.get(r);
                replicas.observed(replica, seqs[r]);
                if (replicas.contains(replica) && !replicas.inSync(replica) && seqs[r] >= 0) {
                    long from = seqs[r];
                    all = all.thenCompose(done -> from < sourceTrimmed
                            ? fromSnapshot(source, replica) : copyLog(source, replica, from));
                }
            }
            return all;
        }).thenCompose(step -> step);
    }

    private CompletableFuture<Probe> probe(WriteLink replica) {
        return replica.send(readLog(Long.MAX_VALUE), settings.timeout()).thenApply(response -> {
            if (response.getStatus() != Status.OK) {
                throw new IllegalStateException(response.getStatus() + ": " + response.getError());
            }
            return new Probe(response.getLastSeq(), response.getTrimmedSeq());
        });
    }

    private WriteRequest.Builder readLog(long fromSeq) {
        return request().setFromSeq(fromSeq).addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG));
    }

    /**
     * File-based recovery, for a replica further behind than the source's log reaches: the source
     * commits and publishes a snapshot of its copy in the partition store, the replica's copy is
     * replaced by it, and the source's log above the snapshot follows ({@link #copyLog}).
     */
    private CompletableFuture<Void> fromSnapshot(Replica source, Replica replica) {
        WriteRequest.Builder snapshot = request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT));
        return source.link.send(snapshot, settings.timeout()).thenCompose(made -> {
            if (made.getStatus() != Status.OK) {
                return CompletableFuture.<Void>failedFuture(new IOException("a snapshot of leaf " + source.address()
                        + "'s copy: " + made.getStatus() + ": " + made.getError()));
            }
            WriteRequest.Builder restore = request().setSnapshot(made.getSnapshot())
                    .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE));
            return replica.link.send(restore, settings.timeout()).thenCompose(restored -> {
                if (restored.getStatus() != Status.OK) {
                    return CompletableFuture.<Void>failedFuture(new IOException("restoring snapshot "
                            + made.getSnapshot() + " of leaf " + source.address() + ": " + restored.getStatus() + ": "
                            + restored.getError()));
                }
                meters.snapshotRestored();
                return copyLog(source, replica, restored.getLastSeq());
            });
        }).exceptionally(failure -> {
            caughtUpOrNot(replica, failure);
            return null;
        });
    }

    private CompletableFuture<Void> copyLog(Replica source, Replica replica, long fromSeq) {
        return source.link.send(readLog(fromSeq), settings.timeout()).thenCompose(log -> {
            if (log.getStatus() != Status.OK) {
                return CompletableFuture.<Void>failedFuture(new IOException("reading the log of leaf "
                        + source.address() + " from seq " + fromSeq + ": " + log.getError()));
            }
            CompletableFuture<Void> sent = CompletableFuture.completedFuture(null);
            List<WriteOp> ops = log.getLogList();
            for (int from = 0; from < ops.size(); from += CATCH_UP_CHUNK_OPS) {
                List<WriteOp> chunk = ops.subList(from, Math.min(ops.size(), from + CATCH_UP_CHUNK_OPS));
                sent = sent.thenCompose(done -> replica.link.send(request().setPrimary(false)
                        .setWaitForRefresh(true).addAllOps(chunk), settings.timeout())
                        .thenAccept(answer -> {
                            if (answer.getStatus() != Status.OK) {
                                throw new IllegalStateException(answer.getStatus() + ": " + answer.getError());
                            }
                        }));
            }
            long target = log.getLastSeq();
            return sent.thenRun(() -> {
                replicas.markInSync(replica, target);
                meters.catchUp(true);
            });
        }).exceptionally(failure -> {
            caughtUpOrNot(replica, failure);
            return null;
        });
    }

    private void caughtUpOrNot(Replica replica, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        replicas.catchUpFailed(replica, String.valueOf(cause.getMessage()));
        meters.catchUp(false);
    }
}
