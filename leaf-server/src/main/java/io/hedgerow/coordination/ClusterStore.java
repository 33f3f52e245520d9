package io.hedgerow.coordination;

import java.util.Optional;
import java.util.function.Function;

/**
 * The partitions' states as stored in the coordination engine, each changed only by compare-and-set
 * on the version it was read at. The write path's changes ({@link #promote}, {@link #removeFromInSync},
 * {@link #addToInSync}) read the partition afresh, decide with a pure {@link PartitionStateTransitions}
 * function and write the result only if nobody wrote in between: one attempt each. On
 * {@link UpdateOutcome.Conflict} call again (it reads again, so the decision is remade on what the
 * other writer left: a deposed primary's removal, for instance, is then refused for its term).
 *
 * <p>These calls go to ZooKeeper and block (up to about twice the connection timeout when it cannot
 * be reached): they belong on the paths that change the cluster (a primary shrinking the in-sync set,
 * the placement leader promoting), never on the request path, which reads {@link ClusterStateCache}.
 *
 * <p>A caveat of the engine: when the connection drops while a compare-and-set is in flight, the
 * client retries it; if the first attempt had been applied, the retry finds a newer version and the
 * call answers {@link UpdateOutcome.Conflict} although the change is stored. Calling again then sees
 * it: {@code removeFromInSync} and {@code addToInSync} answer {@link UpdateOutcome.Unchanged}, while
 * {@code promote} would bump the term once more (harmless: terms need only increase).
 */
public interface ClusterStore {
    /** The partition's stored state with its version, or empty when it has no znode. */
    Optional<PartitionState> read(int partition) throws CoordinationException;

    /**
     * Stores a new partition's state ({@link PartitionState#initial}). {@link UpdateOutcome.Written}
     * at version 0, or {@link UpdateOutcome.Conflict} when the partition already has a state.
     */
    UpdateOutcome create(PartitionState initial) throws CoordinationException;

    /**
     * Writes {@code next} if the partition's znode is still at {@code current.version()}:
     * {@link UpdateOutcome.Written}, {@link UpdateOutcome.Conflict} or {@link UpdateOutcome.Missing}.
     */
    UpdateOutcome compareAndSet(PartitionState current, PartitionState next) throws CoordinationException;

    /** Reads the partition, applies {@code transition} to it and compare-and-sets the result. */
    default UpdateOutcome update(int partition, Function<PartitionState, Transition> transition)
            throws CoordinationException {
        Optional<PartitionState> read = read(partition);
        if (read.isEmpty()) {
            return new UpdateOutcome.Missing(partition);
        }
        PartitionState current = read.get();
        return switch (transition.apply(current)) {
            case Transition.To to -> compareAndSet(current, to.next());
            case Transition.Same same -> new UpdateOutcome.Unchanged(current);
            case Transition.Refused refused -> new UpdateOutcome.Refused(current, refused.reason());
        };
    }

    /** {@link PartitionStateTransitions#promote} on the stored state. */
    default UpdateOutcome promote(int partition, NodeId newPrimary) throws CoordinationException {
        return update(partition, state -> PartitionStateTransitions.promote(state, newPrimary));
    }

    /** {@link PartitionStateTransitions#removeFromInSync} on the stored state. */
    default UpdateOutcome removeFromInSync(int partition, NodeId node, long expectedTerm) throws CoordinationException {
        return update(partition, state -> PartitionStateTransitions.removeFromInSync(state, node, expectedTerm));
    }

    /** {@link PartitionStateTransitions#addToInSync} on the stored state. */
    default UpdateOutcome addToInSync(int partition, NodeId node, long expectedTerm) throws CoordinationException {
        return update(partition, state -> PartitionStateTransitions.addToInSync(state, node, expectedTerm));
    }
}
