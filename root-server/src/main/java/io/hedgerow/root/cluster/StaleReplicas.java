package io.hedgerow.root.cluster;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The partition replicas that missed acknowledged writes (out of the write path's in-sync set), for
 * the replica choice of searches: such a replica is read only when the partition has no other, as
 * Elasticsearch reads only in-sync copies. The write path marks and clears them; searches ask.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe and non-blocking. While no replica is stale (a
 * cluster that takes no writes, or whose replicas are all in sync) a question costs one volatile
 * read.
 */
public final class StaleReplicas {
    private final int leaves;
    private final AtomicIntegerArray stale;
    private final AtomicInteger count = new AtomicInteger();

    public StaleReplicas(int partitions, int leaves) {
        if (partitions < 1 || leaves < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + ", leaves: " + leaves
                    + " (expected: both >= 1)");
        }
        this.leaves = leaves;
        this.stale = new AtomicIntegerArray(partitions * leaves);
    }

    /** Whether {@code leaf}'s replica of {@code partition} missed acknowledged writes. */
    public boolean stale(int partition, int leaf) {
        return count.get() > 0 && stale.get(partition * leaves + leaf) != 0;
    }

    /** Marks or clears {@code leaf}'s replica of {@code partition}. */
    public void mark(int partition, int leaf, boolean missedWrites) {
        int value = missedWrites ? 1 : 0;
        if (stale.getAndSet(partition * leaves + leaf, value) != value) {
            count.addAndGet(missedWrites ? 1 : -1);
        }
    }

    /** Clears every mark of {@code leaf}'s replicas: another leaf takes over its slot. */
    public void clearLeaf(int leaf) {
        for (int p = 0; p < stale.length() / leaves; p++) {
            mark(p, leaf, false);
        }
    }

    /** Replicas marked now. */
    public int count() {
        return count.get();
    }
}
