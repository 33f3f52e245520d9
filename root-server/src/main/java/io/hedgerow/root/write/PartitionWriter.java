package io.hedgerow.root.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
 * with the highest last seq becomes primary.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the queue and the in-sync set are guarded by
 * this object's monitor; leaf answers arrive on event loops and never block. A queue over
 * {@code maxQueuedOps} refuses new writes ({@link DocumentResult.Outcome#OVERLOADED}) rather than
 * buffer without bound. Where this differs from Elasticsearch: the root, not a master, decides the
 * in-sync set, and keeps it in memory only; a write a failed primary logged but never acknowledged
 * is not rolled back on it (there are no primary terms), so such a replica may hold a write the
 * others lack until the document is written again.
 */
final class PartitionWriter {
    private static final System.Logger LOG = System.getLogger(PartitionWriter.class.getName());
    private static final long CATCH_UP_EVERY_NANOS = 1_000_000_000L;
    private static final int CATCH_UP_CHUNK_OPS = 256;

    /** A queued write and the future its caller waits on. */
    record Pending(WriteOp op, boolean waitForRefresh, CompletableFuture<WriteResult> result) {
    }

    private final int partition;
    private final WriteLink[] replicas;
    private final boolean[] inSync;
    private final WriteSettings settings;
    private final Ticker ticker;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean busy;
    private boolean closed;
    /** The highest seq acknowledged, and the highest every in-sync replica is known to show searches. */
    private long ackedSeq;
    private long confirmedVisibleSeq;
    private boolean polling;
    private long lastCatchUpNanos;

    PartitionWriter(int partition, WriteLink[] replicas, WriteSettings settings, Ticker ticker) {
        this.partition = partition;
        this.replicas = replicas.clone();
        this.inSync = new boolean[replicas.length];
        java.util.Arrays.fill(inSync, true);
        this.settings = settings;
        this.ticker = ticker;
        this.lastCatchUpNanos = ticker.nanoTime() - CATCH_UP_EVERY_NANOS;
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
        return WriteResult.newBuilder().setOutcome(io.hedgerow.common.wire.proto.WriteOutcome.REJECTED)
                .setError(UNAVAILABLE + "the root is shutting down; the write was not acknowledged").build();
    }

    /**
     * Whether searches may still miss an acknowledged write of this partition: true until every
     * in-sync replica has answered that its searches see the last acknowledged seq (asked here, at
     * most one question in flight). The caller clears the result cache while any partition says
     * true, and once more after.
     */
    boolean pollVisibility() {
        long target;
        boolean[] targets;
        synchronized (this) {
            if (ackedSeq <= confirmedVisibleSeq) {
                return false;
            }
            if (polling) {
                return true;
            }
            polling = true;
            target = ackedSeq;
            targets = inSync.clone();
        }
        List<CompletableFuture<Long>> visible = new ArrayList<>();
        for (int r = 0; r < replicas.length; r++) {
            if (targets[r]) {
                visible.add(replicas[r].send(readLog(Long.MAX_VALUE), settings.timeout()).thenApply(response ->
                        response.getStatus() == Status.OK ? response.getVisibleSeq() : -1L));
            }
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

    /** Called every second: catches up a replica when nothing else runs. */
    synchronized void tick() {
        if (!busy) {
            startNext();
        }
    }

    synchronized int inSyncCount() {
        int count = 0;
        for (boolean in : inSync) {
            count += in ? 1 : 0;
        }
        return count;
    }

    /** The replica reads by id go to: the primary, which has every acknowledged write; -1 when none is in sync. */
    synchronized WriteLink primaryLink() {
        int primary = firstInSync();
        return primary < 0 ? null : replicas[primary];
    }

    private int firstInSync() {
        for (int r = 0; r < inSync.length; r++) {
            if (inSync[r]) {
                return r;
            }
        }
        return -1;
    }

    private synchronized void markOutOfSync(int replica, String reason) {
        if (inSync[replica]) {
            inSync[replica] = false;
            LOG.log(System.Logger.Level.WARNING, "partition {0}: replica on leaf {1} leaves the in-sync set: {2}",
                    partition, replicas[replica].address(), reason);
        }
    }

    private synchronized void markInSync(int replica, long lastSeq) {
        if (!inSync[replica]) {
            inSync[replica] = true;
            LOG.log(System.Logger.Level.INFO, "partition {0}: replica on leaf {1} is in sync again at seq {2}",
                    partition, replicas[replica].address(), lastSeq);
        }
    }

    /** Runs the next step; the caller holds the monitor. */
    private void startNext() {
        if (closed) {
            busy = false;
            return;
        }
        busy = true;
        CompletableFuture<Void> step;
        boolean needsCatchUp = inSyncCount() < inSync.length;
        long now = ticker.nanoTime();
        if (needsCatchUp && now - lastCatchUpNanos >= CATCH_UP_EVERY_NANOS) {
            lastCatchUpNanos = now;
            step = catchUp();
        } else if (!queue.isEmpty()) {
            List<Pending> batch = new ArrayList<>();
            while (!queue.isEmpty() && batch.size() < settings.maxBatchOps()) {
                batch.add(queue.poll());
            }
            step = runBatch(batch);
        } else {
            busy = false;
            return;
        }
        step.whenComplete((ignored, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.ERROR, "partition " + partition + ": a write step failed", failure);
            }
            synchronized (this) {
                busy = false;
                startNext();
            }
        });
    }

    private CompletableFuture<Void> runBatch(List<Pending> batch) {
        int primary;
        boolean stopping;
        synchronized (this) {
            primary = firstInSync();
            stopping = closed;
        }
        if (stopping) {
            batch.forEach(pending -> pending.result().complete(shuttingDown()));
            return CompletableFuture.completedFuture(null);
        }
        if (primary < 0) {
            for (Pending pending : batch) {
                pending.result().complete(WriteResult.newBuilder()
                        .setOutcome(io.hedgerow.common.wire.proto.WriteOutcome.REJECTED)
                        .setError(UNAVAILABLE + "no replica of partition " + partition + " is in sync").build());
            }
            return CompletableFuture.completedFuture(null);
        }
        WriteRequest.Builder request = WriteRequest.newBuilder().setPartition(partition).setPrimary(true)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::waitForRefresh));
        batch.forEach(pending -> request.addOps(pending.op()));
        return replicas[primary].send(request, settings.timeout()).handle((response, failure) -> {
            String problem = problem(response, failure);
            if (problem != null) {
                markOutOfSync(primary, problem);
                return runBatch(batch);
            }
            return replicate(primary, batch, response);
        }).thenCompose(step -> step);
    }

    /** Null when the answer is OK, else what went wrong. */
    private static String problem(WriteResponse response, Throwable failure) {
        if (failure != null) {
            return String.valueOf(failure.getMessage());
        }
        return response.getStatus() == Status.OK ? null : response.getStatus() + ": " + response.getError();
    }

    private CompletableFuture<Void> replicate(int primary, List<Pending> batch, WriteResponse numbered) {
        WriteRequest.Builder copy = WriteRequest.newBuilder().setPartition(partition).setPrimary(false)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::waitForRefresh));
        for (int i = 0; i < batch.size(); i++) {
            long seq = numbered.getResults(i).getSeq();
            if (seq > 0) {
                copy.addOps(batch.get(i).op().toBuilder().setSeq(seq));
            }
        }
        List<CompletableFuture<Void>> copies = new ArrayList<>();
        if (copy.getOpsCount() > 0) {
            boolean[] targets;
            synchronized (this) {
                targets = inSync.clone();
            }
            for (int r = 0; r < replicas.length; r++) {
                if (r == primary || !targets[r]) {
                    continue;
                }
                int replica = r;
                copies.add(replicas[r].send(copy.clone(), settings.timeout()).handle((response, failure) -> {
                    String problem = problem(response, failure);
                    if (problem != null) {
                        markOutOfSync(replica, problem);
                    }
                    return null;
                }));
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenRun(() -> {
            synchronized (this) {
                ackedSeq = Math.max(ackedSeq, numbered.getLastSeq());
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result().complete(numbered.getResults(i));
            }
        });
    }

    /** Prefix of the error of a write no replica could take. */
    static final String UNAVAILABLE = "unavailable: ";

    /** Brings one out-of-sync replica (the first reachable) up to the primary. */
    private CompletableFuture<Void> catchUp() {
        List<CompletableFuture<Long>> lastSeqs = new ArrayList<>();
        for (WriteLink replica : replicas) {
            lastSeqs.add(lastSeq(replica));
        }
        return CompletableFuture.allOf(lastSeqs.toArray(CompletableFuture[]::new)).handle((ignored, f) -> {
            long[] seqs = lastSeqs.stream().mapToLong(seq -> seq.isCompletedExceptionally() ? -1 : seq.join()).toArray();
            int primary;
            synchronized (this) {
                primary = firstInSync();
                if (primary < 0) {
                    // Nobody in sync: the most advanced reachable replica leads.
                    for (int r = 0; r < seqs.length; r++) {
                        if (seqs[r] >= 0 && (primary < 0 || seqs[r] > seqs[primary])) {
                            primary = r;
                        }
                    }
                    if (primary < 0) {
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    markInSync(primary, seqs[primary]);
                }
            }
            CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
            for (int r = 0; r < replicas.length; r++) {
                boolean behind;
                synchronized (this) {
                    behind = !inSync[r];
                }
                if (behind && seqs[r] >= 0) {
                    int replica = r;
                    int source = primary;
                    all = all.thenCompose(done -> copyLog(source, replica, seqs[replica]));
                }
            }
            return all;
        }).thenCompose(step -> step);
    }

    private CompletableFuture<Long> lastSeq(WriteLink replica) {
        return replica.send(readLog(Long.MAX_VALUE), settings.timeout()).thenApply(response -> {
            if (response.getStatus() != Status.OK) {
                throw new IllegalStateException(response.getStatus() + ": " + response.getError());
            }
            return response.getLastSeq();
        });
    }

    private WriteRequest.Builder readLog(long fromSeq) {
        return WriteRequest.newBuilder().setPartition(partition).setFromSeq(fromSeq)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG));
    }

    private CompletableFuture<Void> copyLog(int source, int replica, long fromSeq) {
        return replicas[source].send(readLog(fromSeq), settings.timeout()).thenCompose(log -> {
            if (log.getStatus() != Status.OK) {
                return CompletableFuture.<Void>failedFuture(new IOException("reading the log of leaf "
                        + replicas[source].address() + ": " + log.getError()));
            }
            CompletableFuture<Void> sent = CompletableFuture.completedFuture(null);
            List<WriteOp> ops = log.getLogList();
            for (int from = 0; from < ops.size(); from += CATCH_UP_CHUNK_OPS) {
                List<WriteOp> chunk = ops.subList(from, Math.min(ops.size(), from + CATCH_UP_CHUNK_OPS));
                sent = sent.thenCompose(done -> replicas[replica].send(WriteRequest.newBuilder().setPartition(partition)
                        .setPrimary(false).setWaitForRefresh(true).addAllOps(chunk), settings.timeout())
                        .thenAccept(answer -> {
                            if (answer.getStatus() != Status.OK) {
                                throw new IllegalStateException(answer.getStatus() + ": " + answer.getError());
                            }
                        }));
            }
            long target = log.getLastSeq();
            return sent.thenRun(() -> markInSync(replica, target));
        }).exceptionally(failure -> {
            LOG.log(System.Logger.Level.INFO, "partition {0}: catching up leaf {1} failed, to retry: {2}", partition,
                    replicas[replica].address(), failure.getMessage());
            return null;
        });
    }
}
