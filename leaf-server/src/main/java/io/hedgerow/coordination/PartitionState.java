package io.hedgerow.coordination;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the cluster agrees about one partition (PacificA's configuration): the primary, its term and
 * the in-sync set, the copies a write must reach before the primary acknowledges it. Stored as one
 * znode per partition and changed only by compare-and-set ({@link ClusterStore}).
 *
 * @param partition   the partition number, {@code >= 0}
 * @param primaryTerm the primary's term, {@code >= 1}: each promotion bumps it, so every operation a
 *                    primary orders carries a term that no other primary ever had, and a leaf refuses
 *                    operations of a term older than one it has seen. 0 is left free to mean "no term
 *                    yet" (Elasticsearch's unassigned primary term)
 * @param primary     the copy that orders writes; always in {@code inSync}
 * @param inSync      the copies that hold every acknowledged write, primary included (sorted, immutable)
 * @param version     the znode's data version this state was read at (ZooKeeper's {@code Stat.version}),
 *                    the version a compare-and-set expects; {@link #UNSTORED} for a state not yet stored
 */
public record PartitionState(int partition, long primaryTerm, NodeId primary, Set<NodeId> inSync, int version) {
    /** The version of a state that is not (yet) in ZooKeeper. */
    public static final int UNSTORED = -1;
    /** The term of a partition's first primary. */
    public static final long FIRST_TERM = 1;

    public PartitionState {
        if (partition < 0) {
            throw new IllegalArgumentException("partition: " + partition + " (expected: >= 0)");
        }
        if (primaryTerm < FIRST_TERM) {
            throw new IllegalArgumentException("primaryTerm: " + primaryTerm + " (expected: >= " + FIRST_TERM + ")");
        }
        Objects.requireNonNull(primary, "primary");
        Objects.requireNonNull(inSync, "inSync");
        inSync = Collections.unmodifiableSortedSet(new TreeSet<>(inSync));
        if (!inSync.contains(primary)) {
            throw new IllegalArgumentException("primary: " + primary + " (expected: in the in-sync set " + inSync + ")");
        }
        if (version < UNSTORED) {
            throw new IllegalArgumentException("version: " + version + " (expected: >= " + UNSTORED + ")");
        }
    }

    /** A new partition's state, not yet stored: {@code primary} in term 1 with {@code replicas} in sync. */
    public static PartitionState initial(int partition, NodeId primary, Collection<NodeId> replicas) {
        Set<NodeId> inSync = new TreeSet<>(replicas);
        inSync.add(primary);
        return new PartitionState(partition, FIRST_TERM, primary, inSync, UNSTORED);
    }

    public boolean isInSync(NodeId node) {
        return inSync.contains(node);
    }

    /** This state as read (or written) at {@code newVersion}. */
    public PartitionState withVersion(int newVersion) {
        return new PartitionState(partition, primaryTerm, primary, inSync, newVersion);
    }
}
