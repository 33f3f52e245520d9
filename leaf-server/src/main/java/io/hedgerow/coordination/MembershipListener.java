package io.hedgerow.coordination;

/**
 * Hears leaves join and leave. Called on Curator's event thread, one event at a time in ZooKeeper's
 * order: return quickly and hand any real work to another thread.
 */
public interface MembershipListener {
    /** Leaf {@code node} is live at {@code address}; also called when a live leaf's address changes. */
    void joined(NodeId node, String address);

    /**
     * Leaf {@code node} wrote {@code entry} (also right after {@link #joined}): its address and, from a
     * leaf that publishes it, its load counters.
     */
    default void published(NodeId node, LeafEntry entry) {
    }

    /** The leaves registered when the membership started have all been heard as joins. */
    default void initialized() {
    }

    /** Leaf {@code node}'s session ended (closed, expired, or it unregistered). */
    void left(NodeId node);
}
