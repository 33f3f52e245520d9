package io.hedgerow.coordination;

/**
 * Hears partition states change in a {@link ClusterStateCache}. Called on Curator's event thread, in
 * ZooKeeper's order: return quickly.
 */
public interface PartitionStateListener {
    /** {@code state} is the partition's state now (new, or a new version). */
    void changed(PartitionState state);

    /** The partition's znode was deleted, or now holds a state that cannot be read. */
    default void removed(int partition) {
    }
}
