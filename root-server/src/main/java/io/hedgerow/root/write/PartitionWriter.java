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
 * in its numbers after it missed writes) leaves the in-sync set before the write is acknowledged
 * without it, so it no longer blocks writes: a write is answered within the replica timeout (plus
 * the catch-up step below, one second at most). When the primary fails, the batch goes to the next
 * in-sync replica, which becomes primary. Promotion is only ever from the in-sync set: the last
 * replica in sync never leaves it by failing ({@link ReplicaSet#markOutOfSync}), and while it is
 * down the partition's writes are refused ({@link #UNAVAILABLE}, a 503 naming the partition and
 * why), never acknowledged by a replica that missed writes. A primary that numbers a write at or
 * below the acknowledged seq has lost acknowledged writes: it leaves the set and the batch is refused.
 * A replica that answers {@code diverged:} leaves the set to be rebuilt from a snapshot.
 *
 * <p><b>Catching up.</b> At most once a second per partition, the out-of-sync replicas are caught up
 * beside the writes ({@link ReplicaCatchUp#advance}: they say their last seq, the primary's log
 * supplies what follows); one that got to the end of it joins the set in a step between batches
 * that copies what was logged since and lasts one second at most ({@link ReplicaCatchUp#finish}).
 * The very first step, before any batch, asks every replica its last seq
 * ({@link ReplicaSet#reconcile}), so a root started afresh never makes a replica that missed writes
 * the primary; until every replica has answered, the partition refuses writes.
 *
 * <p><b>New copies.</b> A copy the placement adds ({@link #copies}) joins out of sync and is caught
 * up at once, the same way; the placement lets it serve searches only once it is in sync. Writes
 * acknowledged meanwhile are on the replicas in sync, and the catch-up's last step, which runs with
 * no batch in flight, brings the copy to the last of them before the next batch includes it.
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
 * buffer without bound. A batch holds at most {@link WriteSettings#maxBatchOps} writes and
 * {@link WriteSettings#maxBatchBytes} of them, so no request outgrows the leaves' frame. Where this
 * differs from Elasticsearch: the root, not a master, decides the in-sync set, and keeps it in
 * memory only; a write a failed primary logged but never acknowledged is not rolled back on it
 * (there are no primary terms), so such a replica may hold a write the others lack until the
 * document is written again (or, when another op reaches it under that seq, it answers
 * {@code diverged:} and is rebuilt).
 */
final class PartitionWriter {
    private static final long CATCH_UP_EVERY_NANOS = 1_000_000_000L;
    /** Prefix of the error of a write no replica could take. */
    static final String UNAVAILABLE = "unavailable: ";
    private static final String DIVERGED = "diverged: ";

    /** A queued write and the future its caller waits on. */
    record Pending(WriteOp op, boolean refreshNow, CompletableFuture<WriteResult> result) {
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
    private final VisibilityWatch visibility;
    /** The highest seq acknowledged. */
    private long ackedSeq;
    private long lastCatchUpNanos;
    /** A catch-up copying beside the writes ({@link ReplicaCatchUp#advance}) is under way. */
    private boolean advancing;
    /** Replicas that caught up beside the writes, for the next step to let join ({@link ReplicaCatchUp#finish}). */
    private List<ReplicaCatchUp.Ready> ready = List.of();

    /** @param links the partition's replicas, and {@code leaves} the index of each one's leaf in the cluster */
    PartitionWriter(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale, WriteSettings settings,
            Ticker ticker, WriteMeters meters) {
        this.partition = partition;
        this.replicas = new ReplicaSet(partition, links, leaves, stale);
        this.catchUps = new ReplicaCatchUp(replicas, settings, meters);
        this.visibility = new VisibilityWatch(replicas, settings);
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
     * in-sync replica has answered that its searches see the last acknowledged seq
     * ({@link VisibilityWatch#poll}). The caller clears the result cache while any partition says
     * true, and once more after.
     */
    boolean pollVisibility() {
        long acked;
        synchronized (this) {
            acked = ackedSeq;
        }
        return visibility.poll(acked);
    }

    /** Completes once searches see {@code seq}, or after the write timeout ({@link VisibilityWatch#whenVisible}). */
    CompletableFuture<Void> whenVisible(long seq) {
        return visibility.whenVisible(seq);
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

    /**
     * Runs the next step; the caller holds the monitor. At start, before anything else, the
     * replicas are compared ({@link ReplicaCatchUp#reconcile}, writes wait). Afterwards an
     * out-of-sync replica is caught up beside the writes, at most once a second
     * ({@link ReplicaCatchUp#advance}), and joins the set in a step of its own, between batches and
     * within {@link ReplicaCatchUp#FINISH_TIMEOUT}; otherwise the next batch is sent.
     */
    private void startNext() {
        if (closed) {
            busy = false;
            return;
        }
        busy = true;
        CompletableFuture<Void> step;
        long now = ticker.nanoTime();
        boolean due = now - lastCatchUpNanos >= CATCH_UP_EVERY_NANOS;
        if (!replicas.reconciled()) {
            if (!due && queue.isEmpty()) {
                busy = false;
                return;
            }
            if (due) {
                lastCatchUpNanos = now;
                step = catchUps.reconcile(seq -> {
                    synchronized (this) {
                        ackedSeq = Math.max(ackedSeq, seq);
                    }
                });
            } else {
                step = runBatch(nextBatch(), now);
            }
        } else {
            if (due && !advancing && ready.isEmpty() && replicas.inSyncCount() < replicas.size()) {
                lastCatchUpNanos = now;
                advancing = true;
                catchUps.advance().whenComplete((caughtUp, failure) -> {
                    synchronized (this) {
                        advancing = false;
                        ready = failure == null ? caughtUp : List.of();
                        if (!busy) {
                            startNext();
                        }
                    }
                });
            }
            if (!ready.isEmpty()) {
                List<ReplicaCatchUp.Ready> joining = ready;
                ready = List.of();
                // Writes wait for this step at most FINISH_TIMEOUT; a replica not through by then stays out.
                step = catchUps.finish(joining)
                        .completeOnTimeout(List.of(), ReplicaCatchUp.FINISH_TIMEOUT.toNanos(),
                                java.util.concurrent.TimeUnit.NANOSECONDS)
                        .thenAccept(joined -> {
                            for (ReplicaCatchUp.Ready replica : joined) {
                                replicas.markInSync(replica.replica(), replica.copiedSeq());
                                catchUps.joined();
                            }
                        });
            } else if (!queue.isEmpty()) {
                step = runBatch(nextBatch(), now);
            } else {
                busy = false;
                return;
            }
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

    /**
     * The next batch: up to {@link WriteSettings#maxBatchOps} writes and
     * {@link WriteSettings#maxBatchBytes}, at least one.
     */
    private List<Pending> nextBatch() {
        List<Pending> batch = new ArrayList<>();
        long bytes = 0;
        while (!queue.isEmpty() && batch.size() < settings.maxBatchOps()) {
            long size = encodedSize(queue.peek().op());
            if (!batch.isEmpty() && bytes + size > settings.maxBatchBytes()) {
                break;
            }
            bytes += size;
            batch.add(queue.poll());
        }
        return batch;
    }

    /**
     * {@code ops} in consecutive chunks of at most {@code maxOps} ops and {@code maxBytes} of encoded
     * ops each (an op larger than that alone in its chunk), so that no request outgrows a frame.
     */
    static List<List<WriteOp>> chunks(List<WriteOp> ops, int maxOps, long maxBytes) {
        List<List<WriteOp>> chunks = new ArrayList<>();
        int from = 0;
        while (from < ops.size()) {
            int to = from;
            long bytes = 0;
            while (to < ops.size() && to - from < maxOps) {
                long size = encodedSize(ops.get(to));
                if (to > from && bytes + size > maxBytes) {
                    break;
                }
                bytes += size;
                to++;
            }
            chunks.add(ops.subList(from, to));
            from = to;
        }
        return chunks;
    }

    /** The bytes {@code op} takes in a request: its own, and its field tag and length, roughly. */
    private static long encodedSize(WriteOp op) {
        return op.getSerializedSize() + 8L;
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
        if (!replicas.reconciled()) {
            refuse(batch, "partition " + partition + " takes no writes yet: this root has not heard every replica's"
                    + " last seq since it started (" + problems() + "); a replica that does not answer may hold"
                    + " acknowledged writes the others lack");
            return CompletableFuture.completedFuture(null);
        }
        if (primary == null) {
            refuse(batch, "no replica of partition " + partition + " is in sync (" + problems() + ")");
            return CompletableFuture.completedFuture(null);
        }
        WriteRequest.Builder request = request().setPrimary(true)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::refreshNow));
        batch.forEach(pending -> request.addOps(pending.op()));
        return primary.link.send(request, settings.timeout()).handle((response, failure) -> {
            String problem = problem(response, failure);
            if (problem != null) {
                if (replicas.markOutOfSync(primary, problem)) {
                    return runBatch(batch, startNanos);
                }
                refuse(batch, "partition " + partition + ": its only replica in sync, on leaf " + primary.address()
                        + ", failed the write (" + problem + "); no other copy holds every acknowledged write, so"
                        + " the partition takes no writes until that one answers again");
                return CompletableFuture.<Void>completedFuture(null);
            }
            return replicate(primary, batch, response, startNanos);
        }).thenCompose(step -> step);
    }

    private void refuse(List<Pending> batch, String why) {
        batch.forEach(pending -> pending.result().complete(unavailable(why)));
    }

    /** What is wrong with the partition's replicas, for a refusal. */
    private String problems() {
        List<String> problems = new ArrayList<>();
        for (ReplicaStatus replica : replicas.status()) {
            problems.add("leaf " + replica.leaf() + (replica.inSync() ? " in sync" : " out of sync")
                    + (replica.problem() == null ? "" : ": " + replica.problem()));
        }
        return String.join("; ", problems);
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
                .setWaitForRefresh(batch.stream().anyMatch(Pending::refreshNow));
        long acked;
        synchronized (this) {
            acked = ackedSeq;
        }
        for (int i = 0; i < batch.size(); i++) {
            long seq = numbered.getResults(i).getSeq();
            if (seq > 0 && seq <= acked) {
                // It numbered over acknowledged writes: it lost them (a copy replaced or rolled back).
                replicas.markLost(primary, "numbered a write seq " + seq + ", at or below the acknowledged seq "
                        + acked + ": it lacks acknowledged writes");
                refuse(batch, "partition " + partition + ": the primary on leaf " + primary.address() + " numbered a"
                        + " write seq " + seq + " although writes up to seq " + acked + " were acknowledged; it left"
                        + " the in-sync set and the write was not acknowledged");
                return CompletableFuture.completedFuture(null);
            }
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
                    if (problem != null && problem.contains(DIVERGED)) {
                        replicas.markDiverged(replica, problem);
                    } else if (problem != null) {
                        // Before the write is acknowledged without it; never the last in sync (the primary is).
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
