package io.hedgerow.root.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.common.wire.proto.ReplicaTarget;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * Brings a partition's out-of-sync replicas (one that missed writes, a copy the placement just
 * added, one that diverged) up to the primary, for its {@link PartitionWriter}. A replica the
 * primary's log still reaches is sent the log above its last seq; one further behind (the log was
 * trimmed past it, as it is for a copy opened from the build), or one that answered
 * {@code diverged:} (it holds ops the primary's history does not), first replaces its copy with a
 * snapshot of the primary's (file-based recovery: the primary commits and keeps that commit as a
 * snapshot in its own directory, the replica pulls its files from the primary over the wire, as
 * Elasticsearch's peer recovery does), then gets the log above the snapshot.
 *
 * <p>Three steps, so that a replica that stops answering never holds the partition's writes for
 * longer than a second: {@link #reconcile} (once, at start, before any write: every replica says its
 * last seq); {@link #advance}, which runs beside the writes and copies the bulk; and {@link #finish},
 * which the writer runs with no batch of its own in flight, under a budget of {@link #FINISH_TIMEOUT}:
 * the primary copies what it logged since and tracks the replica from then on (other roots may be
 * writing: only the primary knows there is no batch in between), and a replica that has it all joins
 * the set. A replica that does not finish within the budget stays out and is tried again.
 *
 * <p><b>Assumptions and guarantees.</b> One run of each step at a time (its writer's). Leaf answers
 * arrive on event loops; nothing here blocks. A replica is never marked in sync here: {@link #finish}
 * says which may be, and the writer marks them before its next batch.
 */
final class ReplicaCatchUp {
    /** How long the writer's writes wait, at most, for a replica to finish catching up. */
    static final Duration FINISH_TIMEOUT = Duration.ofSeconds(1);
    /**
     * How long a replica has to restore a snapshot: it pulls the source's files over the wire (peer
     * recovery), which for a large partition takes far longer than a write. A restore cut short is
     * resumed by the next one, which fetches only what the replica lacks.
     */
    static final Duration RESTORE_TIMEOUT = Duration.ofMinutes(30);
    private static final String DIVERGED = "diverged: ";
    private static final System.Logger LOG = System.getLogger(ReplicaCatchUp.class.getName());

    private final ReplicaSet replicas;
    private final WriteSettings settings;
    private final WriteMeters meters;
    /** Reads the partition's stored state again and applies it to {@link #replicas} (nothing without a store). */
    private final Supplier<CompletableFuture<?>> reread;
    /** Replicas whose leaf refused a rebuild over a fed copy, and how long each waits before the next. */
    private final RefusedRebuildBackoff<NodeId> fedBackoff = new RefusedRebuildBackoff<>(RefusedRebuildBackoff.DEFAULT);
    private final Ticker ticker;

    /** Reads no stored state again: without a coordination store. */
    static final Supplier<CompletableFuture<?>> NO_STORE = () -> CompletableFuture.completedFuture(null);

    /**
     * @param reread reads the stored state again and applies it (after a leaf refused a rebuild);
     *               {@link #NO_STORE} without a coordination store
     * @param ticker the writer's clock, which times the backoff after a rebuild refused over a fed copy
     */
    ReplicaCatchUp(ReplicaSet replicas, WriteSettings settings, WriteMeters meters,
            Supplier<CompletableFuture<?>> reread, Ticker ticker) {
        this.replicas = replicas;
        this.settings = settings;
        this.meters = meters;
        this.reread = reread;
        this.ticker = ticker;
    }

    /** A replica's answer to "what is your last seq" (-1: none, it did not answer). */
    private record Probe(long lastSeq, long trimmedSeq) {
        static final Probe NONE = new Probe(-1, -1);
    }

    /** A replica that holds the source's log up to {@code copiedSeq}, ready for {@link #finish}. */
    record Ready(Replica replica, Replica source, long copiedSeq) {
    }

    /**
     * What {@link #finish} did: the replicas that now hold the primary's whole log, and, when the
     * primary could not be reached at all (down: refused or closed, not merely slow), why (else
     * null), for the writer to replace it as a failed write would.
     */
    record Finished(List<Ready> joined, Replica primary, String primaryFailure) {
        static final Finished NONE = new Finished(List.of(), null, null);
    }

    /**
     * Compares the replicas at start ({@link ReplicaSet#reconcile}): every replica says its last
     * seq. The caller runs it with no batch of writes in flight.
     *
     * @param held told the highest seq an in-sync replica holds once reconciled: every write up to it
     *             was acknowledged or logged by a primary, by this root or an earlier one
     */
    CompletableFuture<Void> reconcile(LongConsumer held) {
        List<Replica> probed = replicas.members();
        return probeAll(probed).thenAccept(probes -> {
            long[] seqs = Arrays.stream(probes).mapToLong(Probe::lastSeq).toArray();
            if (replicas.reconcile(probed, seqs)) {
                Replica primary = replicas.primary();
                for (int r = 0; r < probed.size(); r++) {
                    if (probed.get(r) == primary) {
                        held.accept(seqs[r]);
                    }
                }
            }
        });
    }

    private CompletableFuture<Probe[]> probeAll(List<Replica> probed) {
        List<CompletableFuture<Probe>> answers = new ArrayList<>();
        for (Replica replica : probed) {
            answers.add(probe(replica.link).exceptionally(failure -> Probe.NONE));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> answers.stream().map(CompletableFuture::join).toArray(Probe[]::new));
    }

    /**
     * Copies the log of an in-sync replica (the first that answers; after a snapshot of its copy,
     * where needed) to every reachable out-of-sync replica, beside the writes: what it returns is
     * ready for {@link #finish}. Never marks a replica in sync.
     */
    CompletableFuture<List<Ready>> advance() {
        List<Replica> sources = replicas.inSyncNow();
        List<Replica> behind = replicas.members().stream().filter(r -> !replicas.inSync(r)).toList();
        if (sources.isEmpty() || behind.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<Replica> probed = new ArrayList<>(behind);
        probed.addAll(sources);
        return probeAll(probed).thenCompose(probes -> {
            // The source: the first in-sync replica that answers (each holds every acknowledged write).
            int sourceAt = -1;
            for (int r = behind.size(); r < probed.size() && sourceAt < 0; r++) {
                if (probes[r].lastSeq() >= 0) {
                    sourceAt = r;
                }
            }
            if (sourceAt < 0) {
                return CompletableFuture.completedFuture(List.<Ready>of()); // no in-sync replica answers: later
            }
            Replica source = probed.get(sourceAt);
            Probe from = probes[sourceAt];
            List<Ready> ready = new ArrayList<>();
            CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
            for (int r = 0; r < behind.size(); r++) {
                Replica replica = behind.get(r);
                long lastSeq = probes[r].lastSeq();
                replicas.observed(replica, lastSeq);
                if (lastSeq < 0 || !replicas.contains(replica)) {
                    continue;
                }
                long seq = replicas.catchUpFrom(replica, lastSeq);
                all = all.thenCompose(done -> {
                    CompletableFuture<Long> copied = replicas.needsRebuild(replica) || seq < from.trimmedSeq()
                            ? fromSnapshot(source, replica, lastSeq)
                            : copyLog(source, replica, seq, settings.timeout(), Integer.MAX_VALUE);
                    return copied.handle((at, failure) -> {
                        if (failure != null) {
                            failed(replica, failure);
                        } else if (at >= 0) {
                            ready.add(new Ready(replica, source, at));
                        }
                        return null;
                    });
                });
            }
            return all.thenApply(done -> List.copyOf(ready));
        });
    }

    /**
     * The last of a catch-up, run by the writer with no batch of its own in flight: each replica that
     * {@link #advance} brought near the end is finished by the primary (FINISH_CATCH_UP): with no batch
     * numbered in between, whichever root sent it, the primary copies it what it logged above
     * {@link Ready#copiedSeq} and tracks it, so that every batch numbered afterwards reaches it too.
     * Answers the replicas that now hold the primary's whole log, for the writer to mark in sync (with a
     * store: to add to the stored in-sync set). The writer also stops waiting after
     * {@link #FINISH_TIMEOUT} in all.
     */
    CompletableFuture<Finished> finish(List<Ready> ready) {
        Replica primary = replicas.primary();
        if (primary == null) {
            return CompletableFuture.completedFuture(Finished.NONE);
        }
        List<Ready> joined = new ArrayList<>();
        String[] primaryFailure = new String[1];
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (Ready candidate : ready) {
            all = all.thenCompose(done -> {
                if (primaryFailure[0] != null || !replicas.inSync(primary) || !replicas.contains(candidate.replica())
                        || replicas.inSync(candidate.replica())) {
                    return CompletableFuture.completedFuture(null);
                }
                WriteRequest.Builder finishing = request().setPrimary(true).setFromSeq(candidate.copiedSeq())
                        .addCopyTo(ReplicaTarget.newBuilder().setNode(candidate.replica().node.value())
                                .setAddress(candidate.replica().address().toString()))
                        .setCopyTimeoutMillis((int) FINISH_TIMEOUT.toMillis())
                        .addOps(WriteOp.newBuilder().setKind(WriteKind.FINISH_CATCH_UP));
                return primary.link.send(finishing, FINISH_TIMEOUT.plus(PartitionWriter.PRIMARY_MARGIN))
                        .handle((answer, failure) -> {
                            if (failure != null) {
                                failed(candidate.replica(), failure);
                                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                                        ? failure.getCause() : failure;
                                if (!(cause instanceof java.util.concurrent.TimeoutException)) {
                                    // Unreachable or closed (a slow answer is no reason to promote another).
                                    primaryFailure[0] = String.valueOf(cause.getMessage());
                                }
                            } else if (answer.getStatus() != Status.OK) {
                                if (answer.getError().startsWith(DIVERGED)) {
                                    // The replica is ahead of the primary: it holds ops that are not the primary's.
                                    replicas.markDiverged(candidate.replica(), answer.getError());
                                }
                                failed(candidate.replica(), new IOException("finishing its catch-up through the"
                                        + " primary on leaf " + primary.address() + ": " + answer.getStatus() + ": "
                                        + answer.getError()));
                            } else {
                                joined.add(new Ready(candidate.replica(), primary, answer.getLastSeq()));
                            }
                            return null;
                        });
            });
        }
        return all.thenApply(done -> new Finished(List.copyOf(joined), primary, primaryFailure[0]));
    }

    /** Counts a completed catch-up (the writer marked the replica in sync). */
    void joined() {
        meters.catchUp(true);
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
     * File-based recovery, for a replica further behind than the source's log reaches or diverged
     * from it: the source commits and keeps a snapshot of its copy, the replica pulls it from the
     * source's address and replaces its copy with it, and the source's log above the snapshot follows
     * ({@link #copyLog}).
     *
     * <p>A leaf that refuses the rebuild ({@code REBUILD_REFUSED}: it is the primary of this term or a
     * newer one, so this root's view is stale) is neither failed nor marked: the refusal is logged, the
     * stored state read again, and no rebuild of it is asked again until a newer term
     * ({@link ReplicaSet#rebuildRefused}); one refused because the copy was fed since the decision
     * may be asked again in the term, after a backoff ({@link #refused}). Right before the RESTORE, the stored
     * state is read again ({@link #restore}): the decision is seconds old, and another root may have
     * caught the replica up and stored it in sync since.
     *
     * @return the seq up to which the replica holds the source's log, or -1 (not rebuilt, nothing failed)
     */
    private CompletableFuture<Long> fromSnapshot(Replica source, Replica replica, long probedSeq) {
        if (replicas.rebuildRefusedInThisTerm(replica)) {
            return CompletableFuture.completedFuture(-1L); // its leaf said no in this term: only a newer one may ask
        }
        if (fedBackoff.holdsBack(replica.node, ticker.nanoTime())) {
            return CompletableFuture.completedFuture(-1L); // fed during its last pull: asked again after the backoff
        }
        PartitionState stored = replicas.stored();
        if (stored != null && stored.isInSync(replica.node)) {
            // A restore replaces the copy: never one the store says holds every acknowledged write.
            return CompletableFuture.completedFuture(listedInSync(stored, replica, "before a snapshot is made"));
        }
        WriteRequest.Builder snapshot = request().addOps(WriteOp.newBuilder().setKind(WriteKind.SNAPSHOT));
        return source.link.send(snapshot, settings.timeout()).thenCompose(made -> {
            if (made.getStatus() != Status.OK) {
                return CompletableFuture.<Long>failedFuture(new IOException("a snapshot of leaf " + source.address()
                        + "'s copy: " + made.getStatus() + ": " + made.getError()));
            }
            // The decision is seconds old by now (probe, snapshot): the store's word again, right before
            // the RESTORE, so that a replica another root caught up meanwhile is not rebuilt over.
            return reread.get().handle((read, failure) -> failure == null
                    ? restore(source, replica, made.getSnapshot(), probedSeq)
                    : CompletableFuture.<Long>failedFuture(new IOException("not rebuilt: the stored state could not be"
                            + " read again before the RESTORE: " + StoredReplicas.cause(failure).getMessage())))
                    .thenCompose(sent -> sent);
        });
    }

    /**
     * Sends the RESTORE of {@code snapshot} of the source's copy to the replica, unless the stored
     * state last applied lists the replica in sync (it joined meanwhile) or no longer the source. The
     * RESTORE carries {@code probedSeq}, the replica's last seq this decision was made on: the leaf
     * refuses when its copy holds any other (fed since, by another root's catch-up).
     */
    private CompletableFuture<Long> restore(Replica source, Replica replica, String snapshot, long probedSeq) {
        PartitionState stored = replicas.stored();
        if (stored != null && stored.isInSync(replica.node)) {
            // Another root caught it up meanwhile; the reread made it in sync here too.
            return CompletableFuture.completedFuture(listedInSync(stored, replica, "from snapshot " + snapshot
                    + " (the store read again right before the RESTORE)"));
        }
        if (!replicas.inSync(source)) {
            return CompletableFuture.failedFuture(new IOException("not rebuilt: the source of snapshot " + snapshot
                    + ", leaf " + source.address() + ", left the in-sync set before the RESTORE was sent"));
        }
        WriteRequest.Builder restore = request().setSnapshot(snapshot)
                .setSourceAddress(source.address().toString())
                .setExpectedLastSeq(probedSeq)
                .addOps(WriteOp.newBuilder().setKind(WriteKind.RESTORE));
        long term = restore.getPrimaryTerm();
        return replica.link.send(restore, RESTORE_TIMEOUT).thenCompose(restored -> {
            if (restored.getStatus() == Status.REBUILD_REFUSED) {
                return refused(replica, term, restored.getRebuildRefusal(), restored.getError());
            }
            if (restored.getStatus() != Status.OK) {
                return CompletableFuture.<Long>failedFuture(new IOException("restoring snapshot "
                        + snapshot + " of leaf " + source.address() + ": " + restored.getStatus() + ": "
                        + restored.getError()));
            }
            replicas.rebuilt(replica);
            fedBackoff.cleared(replica.node);
            meters.snapshotRestored();
            return copyLog(source, replica, restored.getLastSeq(), settings.timeout(), Integer.MAX_VALUE);
        });
    }

    /**
     * The answer when the stored state lists the replica in sync, whether found before the snapshot
     * or at the reread right before the RESTORE: another root caught it up. It is not rebuilt, and
     * nothing failed: -1, logged at INFO, not counted as a failed catch-up.
     */
    private static long listedInSync(PartitionState stored, Replica replica, String when) {
        LOG.log(System.Logger.Level.INFO, "partition {0}: replica on leaf {1} is not rebuilt {2}: the coordination"
                + " store lists it in the in-sync set {3} of term {4} (stored version {5})", stored.partition(),
                replica.address(), when, stored.inSync(), stored.primaryTerm(), stored.version());
        return -1;
    }

    /**
     * Copies the source's log above {@code fromSeq} to the replica, one read (at most a few MiB,
     * the leaf's cap) and its ops in chunks of at most {@link WriteSettings#maxBatchBytes} at a time.
     *
     * @param reads most log reads; a replica still behind after them answers -1 (not yet ready)
     * @return the seq up to which the replica now holds the source's log, or -1
     */
    private CompletableFuture<Long> copyLog(Replica source, Replica replica, long fromSeq, Duration timeout,
            int reads) {
        return source.link.send(readLog(fromSeq), timeout).thenCompose(log -> {
            if (log.getStatus() != Status.OK) {
                IOException failure = new IOException("reading the log of leaf " + source.address() + " from seq "
                        + fromSeq + ": " + log.getError());
                if (log.getError().startsWith(DIVERGED)) {
                    // The replica is ahead of the source: it holds ops that are not the source's.
                    replicas.markDiverged(replica, log.getError());
                }
                return CompletableFuture.<Long>failedFuture(failure);
            }
            CompletableFuture<Void> sent = CompletableFuture.completedFuture(null);
            for (List<WriteOp> chunk : WriteBatches.chunks(log.getLogList(), settings.maxBatchOps(),
                    settings.maxBatchBytes())) {
                sent = sent.thenCompose(done -> replica.link.send(request().setPrimary(false)
                        .setWaitForRefresh(true).addAllOps(chunk), timeout)
                        .thenAccept(answer -> {
                            if (answer.getStatus() != Status.OK) {
                                if (answer.getError().startsWith(DIVERGED)) {
                                    replicas.markDiverged(replica, answer.getError());
                                }
                                throw new IllegalStateException(answer.getStatus() + ": " + answer.getError());
                            }
                        }));
            }
            List<WriteOp> ops = log.getLogList();
            long target = log.getLastSeq();
            // The leaf answers at most a few MiB of its log at a time: ask again from the last op until the end.
            long copied = ops.isEmpty() ? fromSeq : ops.get(ops.size() - 1).getSeq();
            if (copied < target) {
                return reads > 1 && !ops.isEmpty()
                        ? sent.thenCompose(done -> copyLog(source, replica, copied, timeout, reads - 1))
                        : sent.thenApply(done -> -1L);
            }
            return sent.thenApply(done -> copied);
        });
    }

    /**
     * The replica's leaf refused a rebuild in {@code term}, for {@code reason}: logged, and the stored
     * state read again. A refusal over a primary ({@code PRIMARY_IN_TERM}: this root's view is stale)
     * holds for the term. One over a copy fed since the decision ({@code FED_SINCE_DECISION},
     * {@code FED_DURING_PULL}: a primary is feeding it) holds for that attempt only, and the next is
     * asked after a backoff that doubles with each such refusal in a row ({@link RefusedRebuildBackoff});
     * so does one that gives no reason (an older leaf): asked again too soon costs a pull, whereas held
     * for the term it would leave the copy out of the in-sync set until a promotion. Each is counted by
     * reason ({@code hedgerow.write.rebuilds.refused}).
     */
    private CompletableFuture<Long> refused(Replica replica, long term, RebuildRefusal reason, String why) {
        if (reason == RebuildRefusal.PRIMARY_IN_TERM) {
            meters.rebuildRefused(WriteMeters.RebuildRefusal.NEWER_TERM);
            replicas.rebuildRefused(replica, term, "its leaf refused a rebuild in term " + term + " (" + why
                    + "); the stored state is read again, and no rebuild is asked before a newer term");
        } else {
            long now = ticker.nanoTime();
            fedBackoff.refused(replica.node, now);
            meters.rebuildRefused(switch (reason) {
                case FED_SINCE_DECISION -> WriteMeters.RebuildRefusal.FED_SINCE_DECISION;
                case FED_DURING_PULL -> WriteMeters.RebuildRefusal.FED_DURING_PULL;
                default -> WriteMeters.RebuildRefusal.UNSPECIFIED;
            });
            replicas.rebuildRefused(replica, -1, "its leaf refused a rebuild in term " + term + " (" + why
                    + "); the stored state is read again, the replica is caught up as it then is, and no rebuild"
                    + " is asked for " + Duration.ofNanos(fedBackoff.remainingNanos(replica.node, now)).toMillis()
                    + " ms");
        }
        return reread.get().handle((read, failure) -> {
            if (failure != null) {
                replicas.catchUpFailed(replica, "its leaf refused a rebuild in term " + term + ", and reading the"
                        + " stored state again failed: " + String.valueOf(StoredReplicas.cause(failure).getMessage()));
            }
            return -1L;
        });
    }

    private void failed(Replica replica, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        replicas.catchUpFailed(replica, String.valueOf(cause.getMessage()));
        meters.catchUp(false);
    }
}
