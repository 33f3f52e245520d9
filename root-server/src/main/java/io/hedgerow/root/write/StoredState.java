package io.hedgerow.root.write;

import io.hedgerow.coordination.ClusterStore;
import io.hedgerow.coordination.CoordinationException;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.coordination.Transition;
import io.hedgerow.coordination.UpdateOutcome;
import io.hedgerow.root.cluster.LeafAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * One partition's state in the coordination store (its primary, term and in-sync set,
 * {@link PartitionState}), for its {@link PartitionWriter}: reads and compare-and-set changes, each
 * run on the root's coordination thread, since they block on ZooKeeper and the writer's steps continue
 * on event loops. The writer acts only on what a call answers: a change another root made in between
 * fails the compare-and-set, and the change is decided again on a fresh read (at most
 * {@link #ATTEMPTS} times, then {@link UpdateOutcome.Conflict} is answered and the writer refuses).
 *
 * <p>A replica's node id in the store is its leaf's address ({@link #nodeOf}): leaves have no other
 * name every root agrees on yet, and a leaf restarted on another port is another node (caught up
 * from the primary, as a new copy is).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe: no state of its own; every call goes to the
 * store on {@code executor}, and a failure to reach it completes the future exceptionally (with a
 * {@link CoordinationException}), never with a guess.
 */
final class StoredState {
    /** Compare-and-set attempts per change before giving up on a store other roots keep changing. */
    static final int ATTEMPTS = 3;

    private final int partition;
    private final ClusterStore store;
    private final Executor executor;

    StoredState(int partition, ClusterStore store, Executor executor) {
        this.partition = partition;
        this.store = store;
        this.executor = executor;
    }

    /** A replica's node id in the store: its leaf's {@code host_port}. */
    static NodeId nodeOf(LeafAddress leaf) {
        // Characters a node id may not hold (an IPv6 address's colons) become '-'.
        String host = leaf.host().replaceAll("[^A-Za-z0-9_.-]", "-");
        String name = host + "_" + leaf.port();
        return NodeId.of(name.length() <= 64 ? name : name.substring(name.length() - 64));
    }

    CompletableFuture<Optional<PartitionState>> read() {
        return call(() -> store.read(partition));
    }

    /** Stores the partition's first state; on a conflict (another root stored one first) answers that one. */
    CompletableFuture<Optional<PartitionState>> createOrRead(PartitionState initial) {
        return call(() -> {
            if (store.create(initial) instanceof UpdateOutcome.Written written) {
                return Optional.of(written.state());
            }
            return store.read(partition);
        });
    }

    /**
     * Applies {@code transition} to the stored state by compare-and-set, deciding again on a fresh read
     * after a conflict, {@link #ATTEMPTS} times at most.
     */
    CompletableFuture<UpdateOutcome> update(Function<PartitionState, Transition> transition) {
        return call(() -> {
            UpdateOutcome outcome = null;
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                outcome = store.update(partition, transition);
                if (!(outcome instanceof UpdateOutcome.Conflict)) {
                    return outcome;
                }
            }
            return outcome;
        });
    }

    private interface StoreCall<T> {
        T run() throws CoordinationException;
    }

    private <T> CompletableFuture<T> call(StoreCall<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.run();
            } catch (CoordinationException e) {
                throw new CompletionException(e);
            }
        }, executor);
    }
}
