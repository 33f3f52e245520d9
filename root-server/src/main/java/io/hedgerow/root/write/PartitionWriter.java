package io.hedgerow.root.write;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.root.cluster.StaleReplicas;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The writes of one partition, in order: queued, sent a batch at a time to the partition's primary
 * (the first in-sync replica in assignment order), which numbers and logs them and copies them with
 * those numbers to every other in-sync replica itself (primary-led replication, PacificA's and
 * Elasticsearch's: {@code WriteRequest.copy_to} lists them, the leaf's {@code ReplicationGroup}
 * sends the copies in seq order, one at a time per replica, and answers once each copy answered or
 * timed out, naming the failures); each write is acknowledged once every in-sync replica has it on
 * disk. So any number of roots may write one partition: the primary orders all their batches, and
 * no replica sees one root's seq N+1 before another's N. One batch of this root is in flight at a
 * time, and the batch is the group commit (one fsync per replica per batch). A leaf that does not
 * copy (older, no {@code WriteResponse.copied}) gets the copies from this root, as before.
 *
 * <p><b>Replicas out of sync.</b> A replica that fails a write (down, timed out, an error, or a gap
 * in its numbers after it missed writes), as its primary reports it, leaves the in-sync set before
 * the write is acknowledged without it, so it no longer blocks writes: a write is answered within
 * the replica timeout and {@link #PRIMARY_MARGIN} (plus the catch-up step below, two seconds at
 * most). When the primary fails, the batch goes to the next
 * in-sync replica, which becomes primary. Promotion is only ever from the in-sync set: the last
 * replica in sync never leaves it by failing ({@link ReplicaSet#markOutOfSync}), and while it is
 * down the partition's writes are refused ({@link #UNAVAILABLE}, a 503 naming the partition and
 * why), never acknowledged by a replica that missed writes. A primary that numbers a write at or
 * below the acknowledged seq has lost acknowledged writes: it leaves the set and the batch is refused.
 * A replica that answers {@code diverged:} leaves the set to be rebuilt from a snapshot.
 *
 * <p><b>Catching up.</b> At most once a second per partition, the out-of-sync replicas are caught up
 * beside the writes ({@link ReplicaCatchUp#advance}: they say their last seq, an in-sync replica's
 * log supplies what follows); one that got to the end of it is finished by the primary
 * ({@link ReplicaCatchUp#finish}, {@code FINISH_CATCH_UP}): with no batch of any root numbered in
 * between, the primary copies it the rest of its log and <em>tracks</em> it, copying it every later
 * batch whichever root sent it and reporting its failures to that root. Only then does it join the
 * set, with a store by a compare-and-set at the stored version read before the finish: a root that
 * saw the tracked replica fail a copy meanwhile moved the version on (it takes a failed replica out
 * of the stored set, or writes the state unchanged when it is not in it), so the join fails rather
 * than admit a replica that missed an acknowledged write. A primary that cannot be reached for this
 * step (down, not merely slow) is replaced as a failed write would replace it.
 * The very first step, before any batch, asks every replica its last seq
 * ({@link ReplicaSet#reconcile}), so a root started afresh never makes a replica that missed writes
 * the primary; until every replica has answered, the partition refuses writes.
 *
 * <p><b>New copies.</b> A copy the placement adds ({@link #copies}) joins out of sync and is caught
 * up at once, the same way; the placement lets it serve searches only once it is in sync. Writes
 * acknowledged meanwhile are on the replicas in sync, and the catch-up's last step, which the
 * primary runs with no batch numbered in between, brings the copy to the last of them and has every
 * later batch copied to it.
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
 * <p><b>With a coordination store</b> ({@code --zk}, {@link StoredReplicas}), the partition's primary,
 * primary term and in-sync set are the stored ones, PacificA's configuration: read at start (so a
 * restarted root never trusts whichever replica answers), and changed only by compare-and-set before
 * the writer acts on the change. A replica that fails a write leaves the stored in-sync set before the
 * write is acknowledged without it; a primary that fails is replaced by promoting another replica of
 * the stored in-sync set, which bumps the term in the same compare-and-set; when no replica of that
 * set answers, the partition's writes are refused (503, naming the partition and why). Every request
 * carries the stored term, and so does each copy the primary makes, so a leaf that has seen a newer
 * one refuses it ({@code STALE_TERM}, from the primary itself or reported as a failed copy); the
 * writer then reads the state again and, when another root promoted meanwhile, sends the batch to the
 * new primary. A deposed primary (paused, then resumed) gets no write acknowledged once its replicas
 * have seen the newer term: they refuse its copies, and a compare-and-set in its term fails. A change the store refuses, a store it cannot reach, or a store other roots keep
 * changing ({@link StoredState#ATTEMPTS}) refuses the batch: nothing is acknowledged on a state that
 * may be stale. This writer decides when the stored state must change and what becomes of the batch;
 * {@link StoredReplicas} makes the change in the store and applies the answer to the replicas.
 *
 * <p>This class keeps the partition's queue ({@link WriteBatches}, which cuts it into batches) and
 * runs its steps one at a time (the check at start, catch-ups and their joins, batches);
 * {@link BatchSender} sends each batch to the primary and reads its answer into the writes' results.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the queue is guarded by this object's
 * monitor, the in-sync set by its {@link ReplicaSet}'s and the acknowledged seq by its
 * {@link BatchSender}'s (each taken inside this one, never the other way round); leaf answers arrive
 * on event loops and never block. A queue over
 * {@code maxQueuedOps} refuses new writes ({@link DocumentResult.Outcome#OVERLOADED}) rather than
 * buffer without bound. A batch holds at most {@link WriteSettings#maxBatchOps} writes and
 * {@link WriteSettings#maxBatchBytes} of them, so no request outgrows the leaves' frame. Where this
 * differs from Elasticsearch: the roots, not a master, change the in-sync set (by compare-and-set in
 * the store, or in this root's memory without one), and the primary reports failed copies to the
 * root that sent the batch rather than failing the replica itself; the primary's tracked set starts
 * empty in a new term (the roots' requests name the stored in-sync set);
 * a write a failed primary sent to it but never acknowledged (the primary queues a batch to its
 * replicas before its own log sync, so this includes one the primary never logged) is not rolled back on it (terms fence a
 * deposed primary's root, they roll nothing back), so such a replica may hold a write the others
 * lack until the document is written again (or, when another op reaches it under that seq, it
 * answers {@code diverged:} and is rebuilt).
 */
final class PartitionWriter {
    private static final long CATCH_UP_EVERY_NANOS = 1_000_000_000L;
    /** Prefix of the error of a write no replica could take. */
    static final String UNAVAILABLE = "unavailable: ";

    /** A queued write and the future its caller waits on. */
    record Pending(WriteOp op, boolean refreshNow, CompletableFuture<WriteResult> result) {
    }

    private final int partition;
    private final ReplicaSet replicas;
    private final ReplicaCatchUp catchUps;
    /** The replicas' state kept in the coordination store; null without one. */
    private final StoredReplicas stored;
    private final Ticker ticker;
    /** The writes waiting for a batch. */
    private final WriteBatches queue;
    private boolean busy;
    private boolean closed;
    private final VisibilityWatch visibility;
    /** Sends each batch to the primary and reads its answer; keeps the acknowledged seq. */
    private final BatchSender sender;
    private long lastCatchUpNanos;
    /** A catch-up copying beside the writes ({@link ReplicaCatchUp#advance}) is under way. */
    private boolean advancing;
    /** Replicas that caught up beside the writes, for the next step to let join ({@link ReplicaCatchUp#finish}). */
    private List<ReplicaCatchUp.Ready> ready = List.of();

    /** @param links the partition's replicas, and {@code leaves} the index of each one's leaf in the cluster */
    PartitionWriter(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale, WriteSettings settings,
            Ticker ticker, WriteMeters meters) {
        this(partition, links, leaves, stale, settings, ticker, meters, null);
    }

    /** As above, with the partition's state kept in the coordination store {@code stored} (null: none). */
    PartitionWriter(int partition, WriteLink[] links, int[] leaves, StaleReplicas stale, WriteSettings settings,
            Ticker ticker, WriteMeters meters, StoredState stored) {
        this.partition = partition;
        this.replicas = new ReplicaSet(partition, links, leaves, stale);
        this.stored = stored == null ? null : new StoredReplicas(partition, stored, replicas);
        this.catchUps = new ReplicaCatchUp(replicas, settings, meters,
                this.stored == null ? ReplicaCatchUp.NO_STORE : this.stored::reread, ticker);
        this.visibility = new VisibilityWatch(replicas, settings);
        this.queue = new WriteBatches(settings);
        this.sender = new BatchSender(partition, replicas, this.stored, settings, ticker, meters);
        this.ticker = ticker;
        this.lastCatchUpNanos = ticker.nanoTime() - CATCH_UP_EVERY_NANOS;
        meters.watch(partition, replicas);
    }

    /** Queues a write; false when the queue is full (the caller answers OVERLOADED). */
    synchronized boolean offer(Pending pending) {
        if (closed) {
            pending.result().complete(shuttingDown());
            return true;
        }
        if (!queue.add(pending)) {
            return false;
        }
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
        sender.close();
        queue.drain().forEach(pending -> pending.result().complete(shuttingDown()));
    }

    static WriteResult shuttingDown() {
        return unavailable("the root is shutting down; the write was not acknowledged");
    }

    /** A refusal of a write of which nothing was acknowledged, saying {@code why}. */
    static WriteResult unavailable(String why) {
        return WriteResult.newBuilder().setOutcome(WriteOutcome.REJECTED).setError(UNAVAILABLE + why).build();
    }

    /**
     * Whether searches may still miss an acknowledged write of this partition: true until every
     * in-sync replica has answered that its searches see the last acknowledged seq
     * ({@link VisibilityWatch#poll}). The caller clears the result cache while any partition says
     * true, and once more after.
     */
    boolean pollVisibility() {
        return visibility.poll(sender.ackedSeq());
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
        if (!replicas.reconciled() || (stored != null && !replicas.coordinated())) {
            if (!due && queue.isEmpty()) {
                busy = false;
                return;
            }
            if (due) {
                lastCatchUpNanos = now;
                step = stored != null ? stored.reconcile(catchUps, sender::acknowledged)
                        : catchUps.reconcile(sender::acknowledged);
            } else {
                step = sender.send(queue.next(), now);
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
                // Read before the primary starts tracking: a join at this version fails if any root fenced since.
                PartitionState before = replicas.stored();
                long term = before == null ? 0 : before.primaryTerm();
                int version = before == null ? PartitionState.UNSTORED : before.version();
                // Writes wait for this step at most FINISH_TIMEOUT; a replica not through by then stays out.
                step = catchUps.finish(joining)
                        .completeOnTimeout(ReplicaCatchUp.Finished.NONE,
                                ReplicaCatchUp.FINISH_TIMEOUT.plus(PRIMARY_MARGIN).toNanos(),
                                java.util.concurrent.TimeUnit.NANOSECONDS)
                        .thenCompose(finished -> finished.primaryFailure() != null
                                ? primaryUnanswered(finished.primary(), term, finished.primaryFailure())
                                : join(finished.joined(), term, version));
            } else if (!queue.isEmpty()) {
                step = sender.send(queue.next(), now);
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
     * The primary could not be reached for a catch-up's last step (down: refused or closed), as it
     * would fail a write: without a store it leaves the in-sync set (never the last one) and the next in-sync
     * replica is primary; with one, another replica of the stored in-sync set is promoted by
     * compare-and-set in the next term. The catch-up is tried again through the new primary.
     */
    private CompletableFuture<Void> primaryUnanswered(Replica primary, long term, String problem) {
        String why = "it could not be reached for the last step of a catch-up (" + problem + ")";
        if (stored == null) {
            replicas.markOutOfSync(primary, why);
            return CompletableFuture.completedFuture(null);
        }
        Replica candidate = replicas.inSyncNow().stream().filter(r -> r != primary).findFirst().orElse(null);
        if (candidate == null || primary != replicas.primary()) {
            return CompletableFuture.completedFuture(null);
        }
        return stored.promote(term, candidate.node).thenAccept(refused -> {
            if (refused != null) {
                System.getLogger(PartitionWriter.class.getName()).log(System.Logger.Level.WARNING, "partition "
                        + partition + ": its primary on leaf " + primary.address() + " " + why + " and " + refused);
            }
        });
    }

    /**
     * Marks caught-up replicas in sync: with a store, each only once the stored in-sync set has it, by
     * a compare-and-set at the stored version read before the catch-up finished ({@code version}; each
     * join then expects the version the previous one wrote), so that a replica another root saw fail a
     * copy since (and fenced, {@link StoredReplicas#leave(ReplicaFailure, Replica, long)}) stays out.
     */
    private CompletableFuture<Void> join(List<ReplicaCatchUp.Ready> joined, long term, int version) {
        CompletableFuture<Integer> all = CompletableFuture.completedFuture(version);
        for (ReplicaCatchUp.Ready ready : joined) {
            if (stored == null) {
                replicas.markInSync(ready.replica(), ready.copiedSeq());
                catchUps.joined();
                continue;
            }
            all = all.thenCompose(expected -> stored.joinAtVersion(ready.replica(), term, expected).thenApply(outcome -> {
                if (outcome.why() == null) {
                    replicas.markInSync(ready.replica(), ready.copiedSeq());
                    catchUps.joined();
                    return outcome.version();
                }
                replicas.catchUpFailed(ready.replica(), outcome.why());
                return -2; // no later join of this step can be trusted at a version of its own: they fail too
            }));
        }
        return all.thenAccept(last -> { });
    }

    /** How long the root waits for a primary beyond its copies' timeout: its own fsync and the way back. */
    static final java.time.Duration PRIMARY_MARGIN = java.time.Duration.ofSeconds(1);
}
