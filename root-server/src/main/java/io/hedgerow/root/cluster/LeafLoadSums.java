package io.hedgerow.root.cluster;

import io.hedgerow.coordination.LeafEntry;
import io.hedgerow.coordination.NodeId;
import java.util.HashMap;
import java.util.Map;

/**
 * The cluster's load per partition from what the leaves publish ({@link LeafEntry}): cumulative
 * service nanoseconds, the sum over the leaves of each one's increase between two of its readings of
 * one incarnation. Pure: entries in, totals out; no clock.
 *
 * <p>A leaf's first reading (this root just started, or the leaf restarted: a new incarnation) is only
 * a baseline: its counters hold work done before this root was watching, or they began again at 0. A
 * leaf that left keeps its last reading, so one whose session expired during a pause and that
 * registered again with the same incarnation is counted on from there. The totals therefore never
 * decrease, as the readings {@code LoadWindow} turns into rates must not.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one thread (the membership's event thread)
 * owns it.
 */
final class LeafLoadSums {
    private final long[] totals;
    private final Map<NodeId, LeafEntry> last = new HashMap<>();
    private boolean published;

    LeafLoadSums(int partitions) {
        this.totals = new long[partitions];
    }

    /** Leaf {@code node} published {@code entry}. Partitions beyond this root's are ignored. */
    void published(NodeId node, LeafEntry entry) {
        if (!entry.publishesLoad()) {
            return;
        }
        published = true;
        LeafEntry before = last.put(node, entry);
        if (before == null || before.incarnation() != entry.incarnation()) {
            return; // a baseline
        }
        for (Map.Entry<Integer, Long> now : entry.servedNanos().entrySet()) {
            int partition = now.getKey();
            if (partition < totals.length) {
                long increase = now.getValue() - before.servedNanos().getOrDefault(partition, 0L);
                totals[partition] += Math.max(0, increase);
            }
        }
    }

    /** Each partition's service time summed over the leaves' increases so far. */
    long[] totals() {
        return totals.clone();
    }

    /** Whether any leaf published load. */
    boolean anyPublished() {
        return published;
    }
}
