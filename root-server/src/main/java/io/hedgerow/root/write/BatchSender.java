package io.hedgerow.root.write;

import static io.hedgerow.root.write.PartitionWriter.PRIMARY_MARGIN;
import static io.hedgerow.root.write.PartitionWriter.shuttingDown;
import static io.hedgerow.root.write.PartitionWriter.unavailable;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.ReplicaTarget;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.write.PartitionWriter.Pending;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a partition's batches of writes to its primary, one batch at a time, for its
 * {@link PartitionWriter}, and reads each answer into the result of every write of the batch: the
 * primary's numbering checked against the acknowledged seq, the replicas it names as failed taken out
 * of the in-sync set (with a store, the stored one) before anything is acknowledged without them, the
 * copies made by this root for a primary that does not copy (an older leaf), a failed primary replaced
 * by promotion, a stale term answered by reading the stored state again, and a refusal the document's
 * state decided reported as unknown when an earlier send of the batch may have been applied. It keeps
 * the highest seq acknowledged, which the writer's visibility watch and reconcile also use.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe for its writer's use: {@link #send} is called with
 * no other batch of this sender in flight (the writer runs one step at a time), and the steps of a
 * batch run along one chain of futures, on event loops and store threads, never blocking. The
 * acknowledged seq is guarded by this object's monitor, taken alone or inside the writer's, never
 * around another lock; the in-sync set is guarded by its {@link ReplicaSet}.
 */
final class BatchSender {
    private static final String DIVERGED = "diverged: ";
    /** Sends of one batch, at most, with a coordination store: the first, and after a state another root changed. */
    private static final int BATCH_ATTEMPTS = 1 + StoredState.ATTEMPTS;

    private final int partition;
    private final ReplicaSet replicas;
    /** The replicas' state kept in the coordination store; null without one. */
    private final StoredReplicas stored;
    private final WriteSettings settings;
    private final Ticker ticker;
    private final WriteMeters meters;
    /** Set once the writer closed: a batch not yet sent (or about to be sent again) is refused. */
    private volatile boolean closed;
    /** The highest seq acknowledged. */
    private long ackedSeq;
    /**
     * An earlier send of the batch in flight may have been applied (a primary that did not answer, or
     * a retry after the primary numbered it): set and read along the batch's one chain of steps.
     */
    private volatile boolean mayBeApplied;

    /** @param stored the partition's state in the coordination store; null without one */
    BatchSender(int partition, ReplicaSet replicas, StoredReplicas stored, WriteSettings settings, Ticker ticker,
            WriteMeters meters) {
        this.partition = partition;
        this.replicas = replicas;
        this.stored = stored;
        this.settings = settings;
        this.ticker = ticker;
        this.meters = meters;
    }

    /** Refuses the batch in flight at its next send, if it is sent again, and every later one (shutting down). */
    void close() {
        closed = true;
    }

    /** The highest seq acknowledged. */
    synchronized long ackedSeq() {
        return ackedSeq;
    }

    /**
     * Counts writes up to {@code seq} as acknowledged, as the reconcile at start finds them on the
     * in-sync replicas: no primary may number a write at or below it again.
     */
    synchronized void acknowledged(long seq) {
        ackedSeq = Math.max(ackedSeq, seq);
    }

    /** Sends a new batch (the first send of it); completes once each of its writes has its result. */
    CompletableFuture<Void> send(List<Pending> batch, long startNanos) {
        mayBeApplied = false;
        return runBatch(batch, startNanos, BATCH_ATTEMPTS);
    }

    private CompletableFuture<Void> runBatch(List<Pending> batch, long startNanos) {
        return runBatch(batch, startNanos, BATCH_ATTEMPTS);
    }

    /** @param attempts sends of the batch left, counted only with a coordination store */
    private CompletableFuture<Void> runBatch(List<Pending> batch, long startNanos, int attempts) {
        Replica primary = replicas.primary();
        if (closed) {
            batch.forEach(pending -> pending.result().complete(shuttingDown()));
            return CompletableFuture.completedFuture(null);
        }
        if (!replicas.reconciled()) {
            refuse(batch, "partition " + partition + " takes no writes yet: this root has not heard every replica's"
                    + " last seq since it started (" + problems() + "); a replica that does not answer may hold"
                    + " acknowledged writes the others lack");
            return CompletableFuture.completedFuture(null);
        }
        if (stored != null && !replicas.coordinated()) {
            refuse(batch, "partition " + partition + " takes no writes yet: its primary, term and in-sync set in the"
                    + " coordination store have not been read since this root started (" + problems() + ")");
            return CompletableFuture.completedFuture(null);
        }
        Replica successor = primary == null && stored != null && attempts > 0 ? replicas.successorOfRetiredPrimary() : null;
        if (successor != null) {
            // The primary's copy was retired (it moved): another in-sync replica takes over in the next term.
            return stored.promote(replicas.stored().primaryTerm(), successor.node).thenCompose(why -> {
                if (why != null) {
                    refuse(batch, "partition " + partition + ": its primary's copy was retired and " + why);
                    return CompletableFuture.<Void>completedFuture(null);
                }
                return runBatch(batch, startNanos, attempts - 1);
            });
        }
        if (primary == null) {
            PartitionState state = replicas.stored();
            refuse(batch, "no replica of partition " + partition + " is in sync" + (state == null ? ""
                    : " (stored: primary " + state.primary() + " in term " + state.primaryTerm() + ", in sync "
                            + state.inSync() + ")") + " (" + problems() + ")");
            return CompletableFuture.completedFuture(null);
        }
        if (stored != null && attempts <= 0) {
            refuse(batch, "partition " + partition + ": its state in the coordination store kept changing under this"
                    + " root (another root promoting?); the write was not acknowledged");
            return CompletableFuture.completedFuture(null);
        }
        WriteRequest.Builder request = request().setPrimary(true)
                .setWaitForRefresh(batch.stream().anyMatch(Pending::refreshNow))
                .setCopyTimeoutMillis((int) Math.min(Integer.MAX_VALUE, settings.timeout().toMillis()));
        batch.forEach(pending -> request.addOps(pending.op()));
        // The primary copies the numbered batch to these (and to the replicas it tracks) itself.
        for (Replica replica : replicas.inSyncNow()) {
            if (replica != primary) {
                request.addCopyTo(target(replica));
            }
        }
        // The batch's term: its copies carry the term its primary numbered it in, whatever is read meanwhile.
        long term = request.getPrimaryTerm();
        String termPrimary = request.getPrimaryNode();
        return primary.link.send(request, settings.timeout().plus(PRIMARY_MARGIN)).handle((response, failure) -> {
            String problem = problem(response, failure);
            if (problem == null) {
                return replicate(primary, batch, response, startNanos, attempts, term, termPrimary);
            }
            if (response == null || response.getStatus() != Status.STALE_TERM) {
                // No answer (or an error after numbering): the primary may have logged the batch and
                // copied it to replicas, one of which may number it again as the next primary.
                mayBeApplied = true;
            }
            if (stored != null) {
                return failedPrimary(primary, batch, startNanos, attempts, term, response, problem);
            }
            if (replicas.markOutOfSync(primary, problem)) {
                return runBatch(batch, startNanos);
            }
            refuse(batch, "partition " + partition + ": its only replica in sync, on leaf " + primary.address()
                    + ", failed the write (" + problem + "); no other copy holds every acknowledged write, so"
                    + " the partition takes no writes until that one answers again");
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(step -> step);
    }

    /**
     * With a coordination store, the primary failed the batch (nothing of it was acknowledged): a stale
     * term means another root moved on, so the state is read again and the batch sent by it; otherwise
     * another replica of the stored in-sync set is promoted by compare-and-set (the term bumped in the
     * same write) and the batch goes to it. No such replica: refused.
     */
    private CompletableFuture<Void> failedPrimary(Replica primary, List<Pending> batch, long startNanos, int attempts,
            long term, WriteResponse response, String problem) {
        if (response != null && response.getStatus() == Status.STALE_TERM) {
            return refreshed(batch, startNanos, attempts, term, "the primary on leaf " + primary.address()
                    + " refused term " + term + " (" + problem + ")");
        }
        Replica candidate = replicas.inSyncNow().stream().filter(r -> r != primary).findFirst().orElse(null);
        if (candidate == null) {
            refuse(batch, "partition " + partition + ": its primary on leaf " + primary.address() + " (term " + term
                    + ") failed the write (" + problem + ") and no other replica of its in-sync set "
                    + replicas.stored().inSync() + " in the coordination store is among this root's in-sync replicas;"
                    + " a replica out of that set may lack acknowledged writes, so none is promoted and the partition"
                    + " takes no writes until an in-sync one answers");
            return CompletableFuture.completedFuture(null);
        }
        NodeId next = candidate.node;
        return stored.promote(term, next).thenCompose(why -> {
            if (why != null) {
                refuse(batch, "partition " + partition + ": its primary on leaf " + primary.address()
                        + " failed the write (" + problem + ") and " + why);
                return CompletableFuture.<Void>completedFuture(null);
            }
            return runBatch(batch, startNanos, attempts - 1);
        });
    }

    /**
     * Reads the stored state again after a sign that another root changed it ({@code why}): when the
     * term moved on from {@code term}, the batch is sent again by the new state (nothing of it was
     * acknowledged); otherwise it is refused.
     */
    private CompletableFuture<Void> refreshed(List<Pending> batch, long startNanos, int attempts, long term,
            String why) {
        return stored.reread().handle((read, failure) -> {
            Optional<PartitionState> now = failure == null ? read : Optional.empty();
            if (now.isPresent() && now.get().primaryTerm() > term) {
                return runBatch(batch, startNanos, attempts - 1);
            }
            refuse(batch, "partition " + partition + ": " + why + "; the coordination store "
                    + (failure != null ? "could not be read: " + StoredReplicas.cause(failure).getMessage()
                            : now.map(state -> "holds term " + state.primaryTerm()).orElse("holds no state"))
                    + "; the write was not acknowledged");
            return CompletableFuture.<Void>completedFuture(null);
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

    /** A replica as a primary's copy target: its node id and its leaf's host:port. */
    private static ReplicaTarget target(Replica replica) {
        return ReplicaTarget.newBuilder().setNode(replica.node.value()).setAddress(replica.address().toString())
                .build();
    }

    /**
     * The primary numbered and logged the batch and, a leaf that copies (WriteResponse.copied),
     * copied it to the replicas itself: each replica it names as failed leaves the in-sync set (with a
     * store: the stored one, by compare-and-set) before the batch is acknowledged. An older leaf did
     * not copy: this root copies it, as before primary-led replication.
     */
    private CompletableFuture<Void> replicate(Replica primary, List<Pending> batch, WriteResponse numbered,
            long startNanos, int attempts, long term, String termPrimary) {
        WriteRequest.Builder copy = numberedCopy(primary, batch, numbered, term, termPrimary);
        if (copy == null) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<String>> copies = new ArrayList<>();
        if (numbered.getCopied()) {
            for (ReplicaFailure failure : numbered.getReplicaFailuresList()) {
                copies.add(failed(failure, term));
            }
        } else if (copy.getOpsCount() > 0) {
            for (Replica replica : replicas.inSyncNow()) {
                if (replica != primary) {
                    copies.add(copyFromRoot(replica, copy, term));
                }
            }
        }
        if (stored != null) {
            for (NodeId elsewhere : replicas.storedInSyncElsewhere()) {
                copies.add(stored.leave(elsewhere, "a copy on a leaf this root was not given, which the write"
                        + " does not reach", term));
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenCompose(done -> {
            List<String> unsettled = copies.stream().map(CompletableFuture::join).filter(why -> why != null).toList();
            if (!unsettled.isEmpty()) {
                // A replica that failed is still in the stored in-sync set (or the term moved on): never
                // acknowledged without it. Nothing of the batch was acknowledged, so it may go again by the
                // state read now, when another root moved the term on.
                mayBeApplied = true;
                return refreshed(batch, startNanos, attempts, term, String.join("; ", unsettled));
            }
            replicas.acknowledged(numbered.getLastSeq());
            synchronized (this) {
                ackedSeq = Math.max(ackedSeq, numbered.getLastSeq());
            }
            meters.batch(ticker.nanoTime() - startNanos);
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result().complete(answer(numbered.getResults(i), primary));
            }
            return CompletableFuture.<Void>completedFuture(null);
        });
    }

    /**
     * The result a caller gets: the primary's, except that a refusal the document's state decided (a
     * delete of nothing, a version conflict) is no answer when an earlier send of this batch may have
     * been applied: that send, not the document's history, may be what the retry found.
     */
    private WriteResult answer(WriteResult result, Replica primary) {
        boolean stateRefusal = result.getOutcome() == WriteOutcome.NOT_FOUND || result.getOutcome() == WriteOutcome.CONFLICT;
        if (!stateRefusal || !mayBeApplied) {
            return result;
        }
        return unavailable("partition " + partition + ": the write's outcome is unknown: an earlier send of it got no"
                + " answer from a primary that may have applied it and copied it on, and the retry on leaf "
                + primary.address() + " found " + result.getOutcome() + " (" + result.getError() + "), which that"
                + " earlier send may have caused; read the document to see its state");
    }

    /**
     * The batch as the primary numbered it, for replicas; null (the batch refused) when the primary
     * numbered a write at or below the acknowledged seq: it lost acknowledged writes.
     */
    private WriteRequest.Builder numberedCopy(Replica primary, List<Pending> batch, WriteResponse numbered, long term,
            String termPrimary) {
        WriteRequest.Builder copy = request().setPrimary(false).setPrimaryTerm(term).setPrimaryNode(termPrimary)
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
                return null;
            }
            if (seq > 0) {
                copy.addOps(batch.get(i).op().toBuilder().setSeq(seq));
            }
        }
        return copy;
    }

    /**
     * A replica the primary names as having failed its copy: with a store, out of the stored in-sync
     * set, or the stored version moved on when it is not in it (a replica the primary tracks, whose join
     * another root may be deciding: {@link StoredReplicas#leave(ReplicaFailure, Replica, long)});
     * without one, out of this root's in-sync set. Answers null once the batch may be acknowledged
     * without it, else why not.
     */
    private CompletableFuture<String> failed(ReplicaFailure failure, long term) {
        Replica replica = null;
        try {
            replica = replicas.member(NodeId.of(failure.getNode()));
        } catch (IllegalArgumentException e) {
            // Not a node id this root knows: a replica the primary tracks for another root.
        }
        if (stored != null) {
            return stored.leave(failure, replica, term);
        }
        if (replica != null && replicas.inSync(replica)) {
            if (failure.getDiverged()) {
                replicas.markDiverged(replica, failure.getProblem());
            } else {
                // Before the write is acknowledged without it; never the last in sync (the primary is).
                replicas.markOutOfSync(replica, failure.getProblem());
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /** This root's copy of a numbered batch to one replica, for a primary that does not copy (an older leaf). */
    private CompletableFuture<String> copyFromRoot(Replica replica, WriteRequest.Builder copy, long term) {
        return replica.link.send(copy.clone(), settings.timeout()).handle((response, failure) -> {
            String problem = problem(response, failure);
            if (problem == null) {
                return CompletableFuture.<String>completedFuture(null);
            }
            if (stored != null) {
                return stored.leave(replica, response, problem, problem.contains(DIVERGED), term);
            }
            if (problem.contains(DIVERGED)) {
                replicas.markDiverged(replica, problem);
            } else {
                replicas.markOutOfSync(replica, problem);
            }
            return CompletableFuture.<String>completedFuture(null);
        }).thenCompose(left -> left);
    }
}
