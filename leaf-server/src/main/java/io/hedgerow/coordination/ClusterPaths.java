package io.hedgerow.coordination;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where one cluster's state lives in ZooKeeper, so several clusters can share an ensemble:
 * <pre>
 * /hedgerow/&lt;cluster&gt;/partitions/&lt;n&gt;     one persistent znode per partition: JSON of {@link PartitionState}
 * /hedgerow/&lt;cluster&gt;/leaves/&lt;nodeId&gt;     one ephemeral znode per live leaf: JSON of its {@link LeafEntry} (address, load)
 * /hedgerow/&lt;cluster&gt;/placement-leader     the {@link PlacementLeader}'s latch
 * /hedgerow/&lt;cluster&gt;/placement            the placement leader's plan: every copy of every partition
 * </pre>
 */
public record ClusterPaths(String cluster) {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}");

    public ClusterPaths {
        Objects.requireNonNull(cluster, "cluster");
        if (!VALID.matcher(cluster).matches()) {
            throw new IllegalArgumentException("cluster: '" + cluster
                    + "' (expected: 1-64 letters, digits, '.', '_' or '-', not starting with '.')");
        }
    }

    public String root() {
        return "/hedgerow/" + cluster;
    }

    public String partitions() {
        return root() + "/partitions";
    }

    public String partition(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition: " + partition + " (expected: >= 0)");
        }
        return partitions() + "/" + partition;
    }

    public String leaves() {
        return root() + "/leaves";
    }

    public String leaf(NodeId node) {
        return leaves() + "/" + node.value();
    }

    public String placementLeader() {
        return root() + "/placement-leader";
    }

    /** The placement leader's plan (one versioned znode, changed by compare-and-set; the root's to decode). */
    public String placement() {
        return root() + "/placement";
    }
}
