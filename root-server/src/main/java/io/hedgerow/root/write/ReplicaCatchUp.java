package io.hedgerow.root.write;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongConsumer;

/**
 * Brings a partition's out-of-sync replicas (one that missed writes, a copy the placement just
 * added) up to an in-sync one, for its {@link PartitionWriter}, which runs it between batches. A
 * replica the source's log still reaches is sent the log above its last seq; one further behind
 * (the log was trimmed past it, as it is for a copy opened from the build) first replaces its copy
 * with a snapshot of the source's (file-based recovery: the source commits and publishes that
 * commit in the partition store as hard links, the replica restores it), then gets the log above
 * the snapshot. A replica is in sync again once it has applied the last of it.
 *
 * <p><b>Assumptions and guarantees.</b> One run at a time (its writer's). Leaf answers arrive on
 * event loops; nothing here blocks.
 */
final class ReplicaCatchUp {
    private static final int CHUNK_OPS = 256;

    private final ReplicaSet replicas;
    private final WriteSettings settings;
    private final WriteMeters meters;

    ReplicaCatchUp(ReplicaSet replicas, WriteSettings settings, WriteMeters meters) {
        this.replicas = replicas;
        this.settings = settings;
        this.meters = meters;
    }

    /** A replica's answer to "what is your last seq" (-1: none, it did not answer). */
    private record Probe(long lastSeq, long trimmedSeq) {
        static final Probe NONE = new Probe(-1, -1);
    }

    /**
     * Compares the replicas at start ({@link ReplicaSet#reconcile}), then brings every reachable
     * out-of-sync replica up to an in-sync one: from its log when it still holds every write the
     * replica lacks, else from a snapshot of its copy, then its log above it. The caller runs this
     * with no batch of writes in flight.
     *
     * @param held told the highest seq an in-sync replica holds: every write up to it was
     *             acknowledged, by this root or an earlier one
     */
    CompletableFuture<Void> run(LongConsumer held) {
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
            held.accept(seqs[sourceIndex]);
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

    private WriteRequest.Builder request() {
        return replicas.request(settings.retainedLogOps());
    }

    private WriteRequest.Builder readLog(long fromSeq) {
        return readLog(request(), fromSeq);
    }

    /** A request for the log above {@code fromSeq} (above the last: only the replica's seqs). */
    static WriteRequest.Builder readLog(WriteRequest.Builder request, long fromSeq) {
        return request.setFromSeq(fromSeq).addOps(WriteOp.newBuilder().setKind(WriteKind.READ_LOG));
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
            for (int from = 0; from < ops.size(); from += CHUNK_OPS) {
                List<WriteOp> chunk = ops.subList(from, Math.min(ops.size(), from + CHUNK_OPS));
                sent = sent.thenCompose(done -> replica.link.send(request().setPrimary(false)
                        .setWaitForRefresh(true).addAllOps(chunk), settings.timeout())
                        .thenAccept(answer -> {
                            if (answer.getStatus() != Status.OK) {
                                throw new IllegalStateException(answer.getStatus() + ": " + answer.getError());
                            }
                        }));
            }
            long target = log.getLastSeq();
            // The leaf answers at most a few MiB of its log at a time: ask again from the last op until the end.
            long copied = ops.isEmpty() ? fromSeq : ops.get(ops.size() - 1).getSeq();
            if (!ops.isEmpty() && copied < target) {
                return sent.thenCompose(done -> copyLog(source, replica, copied));
            }
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
