package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.Supplier;

/**
 * Answers one write request to this leaf by its kind, for {@link LiveWrites}, which keeps the copies
 * and runs this on its threads: a batch as a replica or as the partition's primary, a log read, a get
 * by id, a snapshot, a RESTORE ({@link CopyRestores}) and the last step of a replica's catch-up.
 *
 * <p><b>Primary terms.</b> A request that carries a primary term is served only when the term is at
 * least the highest the partition's copy has accepted ({@link PrimaryTerms}, durable beside its log);
 * an older one is refused with {@code STALE_TERM} before anything is read or written, so a root that
 * missed a promotion can no longer order, copy or acknowledge writes on this copy. Before a copy
 * numbers its first batch (or finishes a catch-up) as the primary of a term, that term is recorded
 * durably beside it ({@link PrimaryTerms#ROLE_FILE}): no RESTORE over it in that term.
 *
 * <p><b>Primary-led replication.</b> A batch sent to this leaf as a partition's primary is numbered,
 * queued to its replicas ({@code copy_to}, and those it tracks), then logged, synced and applied here,
 * all under the partition's lock, so the copies go in seq order ({@link ReplicationGroup}) and the
 * replicas' fsyncs overlap this copy's ({@link LivePartition.Numbered}); the request is answered once
 * this copy's log is synced and every copy answered or timed out, with the failures, without a write
 * thread waiting for the copies.
 * {@code FINISH_CATCH_UP} ends a replica's catch-up here, with no batch numbered in between.
 *
 * <p>With {@link LiveSettings#termLog}, each (term, primary) a copy accepts that it was not told
 * before is appended to that file ({@link TermChangeLog}), on the write threads.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: it keeps no state of its own. Writes to one
 * partition are serialized by its {@link LivePartition}'s lock, which this class takes around the
 * numbering and the term records; it never waits for a replica on the calling thread.
 */
final class WriteAnswers {
    /** The leaf's write logger, named as before this class was split out of {@link LiveWrites}. */
    private static final System.Logger LOG = System.getLogger(LiveWrites.class.getName());
    /** How long a primary waits for each copy of a batch when the request says nothing ({@code copy_timeout_millis} 0). */
    static final long DEFAULT_COPY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** This leaf's copies as a write request finds them ({@link LiveWrites} keeps them). */
    interface Copies {
        /** The leaf's directory; before it claimed one, the reason it takes no writes. */
        Path leafDir() throws IOException;

        /** Whether the partition has a copy on disk (open or not). */
        boolean onDisk(int partition);

        /** The partition's open copy; null when none is open. */
        LivePartition opened(int partition);

        /** The partition's copy, opened if need be. */
        LivePartition open(int partition) throws IOException;
    }

    private final Copies leafCopies;
    private final IntPredicate assigned;
    private final PrimaryTerms terms;
    /** The highest term each copy took writes in as the partition's primary: no RESTORE over it in that term. */
    private final PrimaryTerms primaryIn;
    private final ReplicationGroup replication;
    private final CopyRestores copyRestores;
    private final LeafSnapshots snapshots;
    /** {@link TermChangeLog#OFF} until the leaf starts, and without {@code --term-log}. */
    private final Supplier<TermChangeLog> termLog;

    /**
     * @param assigned  whether this leaf serves a partition now; writes to others are refused
     * @param terms     the highest term each copy accepted
     * @param primaryIn the highest term each copy took writes in as primary
     */
    WriteAnswers(Copies leafCopies, IntPredicate assigned, PrimaryTerms terms, PrimaryTerms primaryIn,
            ReplicationGroup replication, CopyRestores copyRestores, LeafSnapshots snapshots,
            Supplier<TermChangeLog> termLog) {
        this.leafCopies = leafCopies;
        this.assigned = assigned;
        this.terms = terms;
        this.primaryIn = primaryIn;
        this.replication = replication;
        this.copyRestores = copyRestores;
        this.snapshots = snapshots;
        this.termLog = termLog;
    }

    /**
     * Answers a write request: runs it on the calling thread, and completes at once, except for a
     * primary's batch or FINISH_CATCH_UP, which complete once their copies are answered.
     */
    CompletableFuture<WriteResponse> answer(WriteRequest request) {
        WriteResponse.Builder response = WriteResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setPartition(request.getPartition());
        if (!assigned.test(request.getPartition())) {
            return done(response.setStatus(Status.NOT_ASSIGNED)
                    .setError("partition " + request.getPartition() + " is not served by this leaf").build());
        }
        try {
            if (request.getPrimaryTerm() > 0) {
                long accepted = acceptTerm(request.getPartition(), request.getPrimaryTerm());
                response.setPrimaryTerm(accepted);
                if (accepted > request.getPrimaryTerm()) {
                    return done(response.setStatus(Status.STALE_TERM).setError("stale primary term: partition "
                            + request.getPartition() + " here has accepted term " + accepted + ", the request carries term "
                            + request.getPrimaryTerm() + " (expected: >= " + accepted + "; its root missed a promotion)")
                            .build());
                }
                termLog.get().told(request.getPartition(), request.getPrimaryTerm(), request.getPrimaryNode());
            }
            WriteOp first = request.getOpsCount() == 1 ? request.getOps(0) : null;
            WriteKind kind = first == null ? null : first.getKind();
            if (kind == WriteKind.READ_LOG && leafCopies.opened(request.getPartition()) == null
                    && !leafCopies.onDisk(request.getPartition())) {
                // Never written here: the build as it is (a root asking at start makes no copy).
                if (request.getFromSeq() != LivePartition.PROBE && request.getFromSeq() > 0) {
                    return done(response.setStatus(Status.ERROR).setError(LivePartition.DIVERGED + "the requester is ahead: it"
                            + " holds writes up to seq " + request.getFromSeq() + " and partition " + request.getPartition()
                            + " here none; it must be rebuilt from this copy").build());
                }
                return done(response.setStatus(Status.OK).setLastSeq(0).setVisibleSeq(0).build());
            }
            if (kind == WriteKind.LIST_SNAPSHOT || kind == WriteKind.READ_SNAPSHOT_FILE) {
                return done(response.setStatus(Status.ERROR).setError(kind + " is served on a peer-recovery connection"
                        + " only (expected: a Hello in the PEER_RECOVERY role)").build());
            }
            if (kind == WriteKind.RESTORE) {
                LivePartition restored;
                try {
                    restored = copyRestores.restore(request);
                } catch (CopyRestores.RebuildRefused refused) {
                    LOG.log(System.Logger.Level.WARNING, refused.getMessage());
                    return done(response.setStatus(Status.REBUILD_REFUSED).setRebuildRefusal(refused.reason())
                            .setError(refused.getMessage()).build());
                }
                return done(response.setStatus(Status.OK).setLastSeq(restored.lastSeq()).setVisibleSeq(restored.visibleSeq())
                        .setTrimmedSeq(restored.trimmedSeq()).build());
            }
            LivePartition live = leafCopies.open(request.getPartition());
            live.allowTrimming(request.getTrimmableSeq());
            if (kind == WriteKind.SNAPSHOT) {
                long seq = snapshots.snapshot(live, request.getPartition());
                return done(response.setStatus(Status.OK).setSnapshot(snapshots.name(request.getPartition(), seq))
                        .setLastSeq(seq).build());
            }
            if (kind == WriteKind.READ_LOG) {
                // At most LivePartition.LOG_READ_BYTES of ops: the root asks again from the last one.
                response.addAllLog(live.logFrom(request.getFromSeq()));
            } else if (kind == WriteKind.GET) {
                response.addResults(live.get(first.getId()));
            } else if (kind == WriteKind.FINISH_CATCH_UP) {
                recordPrimary(live, request);
                return finishCatchUp(live, request, response);
            } else if (request.getPrimary()) {
                recordPrimary(live, request);
                List<CompletableFuture<List<ReplicaFailure>>> copies = new ArrayList<>(1);
                synchronized (live) {
                    // Its tracked replicas known (read after a restart) before anything is numbered.
                    replication.open(request.getPartition(), request.getPrimaryTerm());
                    // Numbered and queued to the replicas under one lock (the copies go in seq order), before
                    // this copy's own log sync: the replicas' syncs overlap it. Answered after both.
                    response.addAllResults(live.write(request.getOpsList(), true,
                            numbered -> copies.add(copy(request, numbered))));
                }
                if (request.getWaitForRefresh()) {
                    live.refresh();
                }
                WriteResponse numbered = response.setStatus(Status.OK).setLastSeq(live.lastSeq())
                        .setVisibleSeq(live.visibleSeq()).setTrimmedSeq(live.trimmedSeq()).setCopied(true).build();
                if (copies.isEmpty()) {
                    return done(numbered); // nothing numbered: nothing to copy
                }
                return copies.get(0).thenApply(failures -> numbered.toBuilder().addAllReplicaFailures(failures).build());
            } else {
                response.addAllResults(live.write(request.getOpsList(), false));
                replication.replicaOf(request.getPartition());
                if (request.getWaitForRefresh()) {
                    live.refresh();
                }
            }
            return done(response.setStatus(Status.OK).setLastSeq(live.lastSeq()).setVisibleSeq(live.visibleSeq())
                    .setTrimmedSeq(live.trimmedSeq()).build());
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "write to partition " + request.getPartition() + " failed", e);
            return done(response.setStatus(Status.ERROR).setError(String.valueOf(e.getMessage())).build());
        }
    }

    private static CompletableFuture<WriteResponse> done(WriteResponse response) {
        return CompletableFuture.completedFuture(response);
    }

    /**
     * Queues the numbered ops of a primary's batch (the very ops its log takes, not copied again) to
     * its replicas; the caller holds the partition's lock.
     */
    private CompletableFuture<List<ReplicaFailure>> copy(WriteRequest request, List<WriteOp> numbered)
            throws IOException {
        WriteRequest copy = WriteRequest.newBuilder().setPartition(request.getPartition()).setPrimary(false)
                .setPrimaryTerm(request.getPrimaryTerm()).setPrimaryNode(request.getPrimaryNode())
                .setTrimmableSeq(request.getTrimmableSeq()).setWaitForRefresh(request.getWaitForRefresh())
                .addAllOps(numbered).build();
        return replication.copy(request.getPartition(), request.getPrimaryTerm(), request.getCopyToList(), copy,
                copyTimeoutNanos(request));
    }

    private static long copyTimeoutNanos(WriteRequest request) {
        return request.getCopyTimeoutMillis() > 0 ? TimeUnit.MILLISECONDS.toNanos(request.getCopyTimeoutMillis())
                : DEFAULT_COPY_TIMEOUT_NANOS;
    }

    /**
     * FINISH_CATCH_UP, to the primary: with no batch numbered in between (the partition's lock), the
     * log above the replica's last seq is queued to it and it is tracked from then on
     * ({@link ReplicationGroup#finish}); answered OK, with the seq it now holds, once it has the log.
     */
    private CompletableFuture<WriteResponse> finishCatchUp(LivePartition live, WriteRequest request,
            WriteResponse.Builder response) throws IOException {
        if (request.getCopyToCount() != 1) {
            return done(response.setStatus(Status.ERROR).setError("FINISH_CATCH_UP names " + request.getCopyToCount()
                    + " replicas (expected: exactly one, in copy_to)").build());
        }
        CompletableFuture<ReplicaFailure> finished;
        long target;
        synchronized (live) {
            List<WriteOp> log = live.logFrom(request.getFromSeq());
            target = live.lastSeq();
            long reached = log.isEmpty() ? request.getFromSeq() : log.get(log.size() - 1).getSeq();
            if (reached < target) {
                return done(response.setStatus(Status.ERROR).setError("replica " + request.getCopyTo(0).getNode()
                        + " at seq " + request.getFromSeq() + " is more than one log read behind seq " + target
                        + " (expected: within " + LivePartition.LOG_READ_BYTES + " bytes of log; catch it up first)")
                        .build());
            }
            List<WriteRequest> copies = log.isEmpty() ? List.of() : List.of(WriteRequest.newBuilder()
                    .setPartition(request.getPartition()).setPrimary(false).setPrimaryTerm(request.getPrimaryTerm())
                    .setPrimaryNode(request.getPrimaryNode()).setTrimmableSeq(request.getTrimmableSeq())
                    .setWaitForRefresh(true).addAllOps(log).build());
            finished = replication.finish(request.getPartition(), request.getPrimaryTerm(), request.getCopyTo(0),
                    copies, copyTimeoutNanos(request));
        }
        WriteResponse.Builder answered = response.setLastSeq(target).setCopied(true);
        return finished.thenApply(failure -> failure == null ? answered.setStatus(Status.OK).build()
                : answered.setStatus(Status.ERROR).addReplicaFailures(failure).setError("finishing the catch-up of "
                        + failure.getNode() + ": " + failure.getProblem()).build());
    }

    /**
     * Accepts the request's primary term for the partition's copy ({@link PrimaryTerms}), durably
     * when it rises, before the request is served.
     *
     * @return the copy's accepted term: higher than {@code term} when the request must be refused
     */
    private long acceptTerm(int partition, long term) throws IOException {
        return terms.accept(partition, LiveWrites.partitionDir(leafCopies.leafDir(), partition), term);
    }

    /**
     * Records, durably before the request is served, that this copy takes writes as the partition's
     * primary in the request's term (term 0, a root without terms: nothing recorded).
     */
    private void recordPrimary(LivePartition live, WriteRequest request) throws IOException {
        if (request.getPrimaryTerm() > 0) {
            // Under the copy's lock, which a restore's swap holds: recorded for a copy being replaced, the
            // role would land in the restored copy's directory and refuse its rebuilds for the whole term.
            synchronized (live) {
                if (leafCopies.opened(request.getPartition()) != live) {
                    throw new IOException("partition " + request.getPartition() + ": this copy was replaced by a"
                            + " restore while the request waited (expected: the copy it was asked of); ask again");
                }
                primaryIn.accept(request.getPartition(),
                        LiveWrites.partitionDir(leafCopies.leafDir(), request.getPartition()), request.getPrimaryTerm());
            }
        }
    }
}
