package io.hedgerow.root.write;

import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteResponse;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.coordination.PartitionStateTransitions;
import io.hedgerow.coordination.UpdateOutcome;
import io.hedgerow.root.write.ReplicaSet.Replica;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongConsumer;

/**
 * A partition's {@link ReplicaSet} kept in step with its state in the coordination store
 * ({@link StoredState}): each change to the primary, term or in-sync set is made by compare-and-set
 * in the store first, and what the store answers is then applied to the set ({@link ReplicaSet#apply}),
 * so the set never runs ahead of the store. Its {@link PartitionWriter} decides when to change it
 * (a replica failed, a primary failed, a copy caught up) and what to do with a batch afterwards.
 *
 * <p>Each change answers {@code null} once it holds in the store (and the set), and otherwise why
 * not: a refusal, a conflict, a store that could not be reached. Never a guess.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: the store calls run on the coordination thread
 * ({@link StoredState}), their answers are applied under the set's monitor; its only state of its
 * own, the last reason logged for a failed first read, is guarded by this object's monitor.
 */
final class StoredReplicas {
    private final int partition;
    private final StoredState store;
    private final ReplicaSet replicas;
    /** Why the stored state could not be read at start, as last logged; null when it was not. */
    private String storeProblem;

    StoredReplicas(int partition, StoredState store, ReplicaSet replicas) {
        this.partition = partition;
        this.store = store;
        this.replicas = replicas;
    }

    /**
     * The first step with a coordination store: the stored state becomes the replicas' ({@link
     * ReplicaSet#apply}). A partition with no stored state yet is compared as without a store (every
     * replica says its last seq, {@code held} told the highest one held), and the result stored, unless
     * another root stored one first (then that one is applied). A store that cannot be reached leaves
     * the partition refusing writes, and the step is tried again a second later.
     */
    CompletableFuture<Void> reconcile(ReplicaCatchUp catchUps, LongConsumer held) {
        return store.read().thenCompose(read -> {
            if (read.isPresent()) {
                replicas.apply(read.get());
                return CompletableFuture.<Void>completedFuture(null);
            }
            return catchUps.reconcile(held).thenCompose(done -> {
                Replica primary = replicas.reconciled() ? replicas.primary() : null;
                if (primary == null) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                List<NodeId> inSync = replicas.inSyncNow().stream().map(r -> r.node).toList();
                return store.createOrRead(PartitionState.initial(partition, primary.node, inSync))
                        .thenAccept(created -> created.ifPresent(replicas::apply));
            });
        }).exceptionally(failure -> {
            String why = String.valueOf(cause(failure).getMessage());
            synchronized (this) {
                if (why.equals(storeProblem)) {
                    return null; // said already: retried every second
                }
                storeProblem = why;
            }
            System.getLogger(PartitionWriter.class.getName()).log(System.Logger.Level.WARNING, "partition " + partition
                    + ": its state in the coordination store could not be read (retried every second): " + why);
            return null;
        });
    }

    /**
     * Reads the stored state again (after a sign that another root changed it) and applies it;
     * completes exceptionally when the store cannot be read.
     */
    CompletableFuture<Optional<PartitionState>> reread() {
        return store.read().thenApply(read -> {
            read.ifPresent(replicas::apply);
            return read;
        });
    }

    /**
     * Adds a caught-up replica to the stored in-sync set by compare-and-set in {@code term}.
     *
     * @return null once the stored set has it; otherwise why not
     */
    CompletableFuture<String> join(Replica replica, long term) {
        NodeId node = replica.node;
        return store.update(state -> PartitionStateTransitions.addToInSync(state, node, term))
                .handle((outcome, failure) -> {
                    PartitionState now = stateOf(outcome);
                    if (now != null) {
                        replicas.apply(now);
                    }
                    if (failure == null && now != null && now.isInSync(node)) {
                        return null;
                    }
                    return "caught up, but not added to the in-sync set in the coordination store: "
                            + (failure != null ? cause(failure).getMessage() : outcome);
                });
    }

    /** What {@link #joinAtVersion} answers: null {@code why} once joined, with the stored version it wrote. */
    record Joined(String why, int version) {
    }

    /**
     * Adds a replica that finished its catch-up through the primary to the stored in-sync set, by
     * compare-and-set in {@code term} and only while the state is at {@code version}, read before the
     * catch-up finished ({@link PartitionStateTransitions#addToInSyncAtVersion}): a root that saw it
     * fail a copy since has moved the version on.
     */
    CompletableFuture<Joined> joinAtVersion(Replica replica, long term, int version) {
        NodeId node = replica.node;
        return store.update(state -> PartitionStateTransitions.addToInSyncAtVersion(state, node, term, version))
                .handle((outcome, failure) -> {
                    PartitionState now = stateOf(outcome);
                    if (now != null) {
                        replicas.apply(now);
                    }
                    if (failure == null && outcome instanceof UpdateOutcome.Written written) {
                        return new Joined(null, written.state().version());
                    }
                    return new Joined("caught up, but not added to the in-sync set in the coordination store: "
                            + (failure != null ? cause(failure).getMessage() : outcome), -1);
                });
    }

    /**
     * A replica did not take the primary's copy of a batch of {@code term} ({@code failure}): out of the
     * stored in-sync set before the batch may be acknowledged, or, when not in it, the stored version
     * moved on so that a join of it decided earlier fails
     * ({@link PartitionStateTransitions#removeFromInSyncOrFence}). One that refused the term is not
     * taken out (this root is the stale one).
     *
     * @param local the replica among this root's, for marking it diverged; null when none
     * @return null once it is out of the stored set; otherwise why the batch must not be acknowledged
     */
    CompletableFuture<String> leave(ReplicaFailure failure, Replica local, long term) {
        if (failure.getStatus() == Status.STALE_TERM) {
            return CompletableFuture.completedFuture("the replica on leaf " + failure.getAddress() + " refused term "
                    + term + " (" + failure.getProblem() + ")");
        }
        NodeId node;
        try {
            node = NodeId.of(failure.getNode());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture("the primary named a failed replica '" + failure.getNode()
                    + "' that is no node id (" + e.getMessage() + ")");
        }
        String problem = failure.getProblem();
        return store.update(state -> PartitionStateTransitions.removeFromInSyncOrFence(state, node, term))
                .handle((outcome, thrown) -> {
                    if (thrown != null) {
                        return "the copy on " + node + " (" + problem + ") could not be taken out of the in-sync set"
                                + " in the coordination store: " + cause(thrown).getMessage();
                    }
                    PartitionState now = stateOf(outcome);
                    if (now != null) {
                        replicas.apply(now);
                    }
                    if (outcome instanceof UpdateOutcome.Written || outcome instanceof UpdateOutcome.Unchanged) {
                        if (local != null && failure.getDiverged()) {
                            replicas.markDiverged(local, problem);
                        }
                        return null;
                    }
                    return "the copy on " + node + " (" + problem + ") was not taken out of the in-sync set by the"
                            + " coordination store (" + outcome + ")";
                });
    }

    /**
     * Promotes {@code next} in place of the primary of {@code term} by compare-and-set (the term bumped
     * in the same write).
     *
     * @return null once promoted; otherwise why not, as the end of a sentence ("... and " + why)
     */
    CompletableFuture<String> promote(long term, NodeId next) {
        return store.update(state -> PartitionStateTransitions.promoteInTerm(state, term, next))
                .handle((outcome, failure) -> {
                    if (failure != null) {
                        return "promoting another in the coordination store failed: " + cause(failure).getMessage();
                    }
                    PartitionState now = stateOf(outcome);
                    if (now != null) {
                        replicas.apply(now);
                    }
                    if (now == null || outcome instanceof UpdateOutcome.Refused) {
                        return "no replica could be promoted in the coordination store (" + outcome + ")";
                    }
                    return null;
                });
    }

    /**
     * A replica failed a batch of {@code term} ({@code response}, {@code problem}): it leaves the
     * stored in-sync set before the batch may be acknowledged without it; one that refused the term
     * is not taken out (its root is the stale one).
     *
     * @return null once it is out of the stored set; otherwise why the batch must not be acknowledged
     */
    CompletableFuture<String> leave(Replica replica, WriteResponse response, String problem, boolean diverged,
            long term) {
        if (response != null && response.getStatus() == Status.STALE_TERM) {
            return CompletableFuture.completedFuture("the replica on leaf " + replica.address() + " refused term "
                    + term + " (" + problem + ")");
        }
        return leave(replica.node, problem, term).thenApply(why -> {
            if (why == null && diverged) {
                replicas.markDiverged(replica, problem);
            }
            return why;
        });
    }

    /**
     * Takes {@code node} out of the stored in-sync set by compare-and-set in {@code term}, because of
     * {@code problem}; applies what the store answers.
     *
     * @return null once it is out of the stored set; otherwise why the batch must not be acknowledged
     */
    CompletableFuture<String> leave(NodeId node, String problem, long term) {
        return store.update(state -> PartitionStateTransitions.removeFromInSync(state, node, term))
                .handle((outcome, failure) -> {
                    if (failure != null) {
                        return "the copy on " + node + " (" + problem + ") could not be taken out of the in-sync set"
                                + " in the coordination store: " + cause(failure).getMessage();
                    }
                    PartitionState now = stateOf(outcome);
                    if (now != null) {
                        replicas.apply(now);
                    }
                    if (outcome instanceof UpdateOutcome.Written || outcome instanceof UpdateOutcome.Unchanged) {
                        return null;
                    }
                    return "the copy on " + node + " (" + problem + ") was not taken out of the in-sync set by the"
                            + " coordination store (" + outcome + ")";
                });
    }

    /** The failure a store call completed with, unwrapped. */
    static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** The state an outcome of the store names (null for none: missing, a lost race, a failure). */
    private static PartitionState stateOf(UpdateOutcome outcome) {
        return switch (outcome) {
            case UpdateOutcome.Written written -> written.state();
            case UpdateOutcome.Unchanged unchanged -> unchanged.state();
            case UpdateOutcome.Refused refused -> refused.state();
            case UpdateOutcome.Conflict conflict -> null;
            case UpdateOutcome.Missing missing -> null;
            case null -> null;
        };
    }
}
