package io.hedgerow.coordination;

import java.util.Set;
import java.util.TreeSet;

/**
 * The changes the write path makes to a partition's state, as pure functions of the state read
 * (PacificA's reconfigurations). {@link ClusterStore} applies them with a compare-and-set on the
 * version the state was read at, so each decision holds for the state it was made on or is not
 * written at all. No ZooKeeper here: tests call these directly.
 *
 * <p>Rules:
 * <ul>
 *   <li>Only a copy in the in-sync set can become primary (it holds every acknowledged write); each
 *       promotion bumps the term.</li>
 *   <li>Only the primary of the current term changes the in-sync set ({@code expectedTerm} is the term
 *       the caller acts for): a deposed primary that has not heard of its successor cannot shrink or
 *       grow the set the new primary relies on.</li>
 *   <li>The primary never leaves the in-sync set by removal; it is replaced by a promotion.</li>
 * </ul>
 */
public final class PartitionStateTransitions {
    private PartitionStateTransitions() {
    }

    /**
     * Makes {@code newPrimary} the primary in the next term. A promotion also takes the previous
     * primary out of the in-sync set: it may have logged writes that no other copy holds (never
     * acknowledged, since they did not reach every in-sync copy), so it comes back only through
     * recovery from the new primary, never by skipping what it already has. Promoting the current
     * primary again only bumps the term (to fence an older incarnation of it).
     */
    public static Transition promote(PartitionState state, NodeId newPrimary) {
        if (!state.isInSync(newPrimary)) {
            return new Transition.Refused("partition " + state.partition() + ": cannot promote " + newPrimary
                    + " (expected: a node of the in-sync set " + state.inSync() + ")");
        }
        Set<NodeId> inSync = new TreeSet<>(state.inSync());
        if (!newPrimary.equals(state.primary())) {
            inSync.remove(state.primary());
        }
        long term = Math.addExact(state.primaryTerm(), 1);
        return new Transition.To(new PartitionState(state.partition(), term, newPrimary, inSync, state.version()));
    }

    /**
     * A promotion decided on the state of {@code expectedTerm} (its primary failed a write): when the
     * stored state is still of that term, {@link #promote} {@code newPrimary}; when another writer has
     * moved the term on already (another root promoted first), {@link Transition.Same}, so the caller
     * adopts what is stored instead of bumping the term once more over it.
     */
    public static Transition promoteInTerm(PartitionState state, long expectedTerm, NodeId newPrimary) {
        if (state.primaryTerm() != expectedTerm) {
            return new Transition.Same();
        }
        return promote(state, newPrimary);
    }

    /**
     * Takes {@code node} out of the in-sync set, as the primary of {@code expectedTerm} must before it
     * acknowledges a write that {@code node} did not confirm. Already out: {@link Transition.Same}.
     */
    public static Transition removeFromInSync(PartitionState state, NodeId node, long expectedTerm) {
        Transition.Refused stale = refuseOtherTerm(state, expectedTerm, "remove " + node + " from");
        if (stale != null) {
            return stale;
        }
        if (node.equals(state.primary())) {
            return new Transition.Refused("partition " + state.partition() + ": cannot remove the primary " + node
                    + " from the in-sync set (expected: a replica; a primary is replaced by promoting another)");
        }
        if (!state.isInSync(node)) {
            return new Transition.Same();
        }
        Set<NodeId> inSync = new TreeSet<>(state.inSync());
        inSync.remove(node);
        return new Transition.To(new PartitionState(state.partition(), state.primaryTerm(), state.primary(), inSync,
                state.version()));
    }

    /**
     * Adds {@code node} to the in-sync set, as the primary of {@code expectedTerm} does once the copy
     * has caught up with it. Already in: {@link Transition.Same}.
     */
    public static Transition addToInSync(PartitionState state, NodeId node, long expectedTerm) {
        Transition.Refused stale = refuseOtherTerm(state, expectedTerm, "add " + node + " to");
        if (stale != null) {
            return stale;
        }
        if (state.isInSync(node)) {
            return new Transition.Same();
        }
        Set<NodeId> inSync = new TreeSet<>(state.inSync());
        inSync.add(node);
        return new Transition.To(new PartitionState(state.partition(), state.primaryTerm(), state.primary(), inSync,
                state.version()));
    }

    /**
     * As {@link #addToInSync}, and only while the stored state is still at {@code expectedVersion}:
     * a replica that caught up through the primary joins only if nothing changed the state since
     * (the version was read before the catch-up finished), so a root that saw it fail a copy meanwhile
     * and {@link #removeFromInSyncOrFence fenced} it keeps it out.
     */
    public static Transition addToInSyncAtVersion(PartitionState state, NodeId node, long expectedTerm,
            int expectedVersion) {
        if (state.version() != expectedVersion) {
            return new Transition.Refused("partition " + state.partition() + ": cannot add " + node + " to the in-sync"
                    + " set at version " + expectedVersion + " (expected: the current version " + state.version()
                    + "; the state changed since its catch-up finished, perhaps because it failed a copy)");
        }
        return addToInSync(state, node, expectedTerm);
    }

    /**
     * A replica failed a primary's copy in {@code expectedTerm}: out of the in-sync set when it is in,
     * as {@link #removeFromInSync}; otherwise the state is written unchanged, which moves its version
     * on, so that a join of that replica decided before the failure ({@link #addToInSyncAtVersion})
     * fails. The primary of the term cannot be taken out (refused).
     */
    public static Transition removeFromInSyncOrFence(PartitionState state, NodeId node, long expectedTerm) {
        Transition removed = removeFromInSync(state, node, expectedTerm);
        return removed instanceof Transition.Same ? new Transition.To(state) : removed;
    }

    private static Transition.Refused refuseOtherTerm(PartitionState state, long expectedTerm, String action) {
        if (state.primaryTerm() == expectedTerm) {
            return null;
        }
        return new Transition.Refused("partition " + state.partition() + ": cannot " + action
                + " the in-sync set for term " + expectedTerm + " (expected: the current term "
                + state.primaryTerm() + ", primary " + state.primary() + ")");
    }
}
