package io.hedgerow.root.cluster;

import java.util.concurrent.atomic.LongAdder;

/**
 * Each partition's query load as the root sees it: the leaves' service time of the sub-requests
 * they answered, per partition, summed since start. The placement service reads the totals once
 * per tick and turns them into rates over a window.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #record} is called by every event loop
 * for every answer and never blocks (a {@link LongAdder} per partition), and does nothing when no
 * controller reads the load.
 */
public final class PartitionLoad {
    private final LongAdder[] serviceNanos;
    private final boolean measured;

    /** @param measured whether anything reads the load; false: {@link #record} does nothing */
    public PartitionLoad(int partitions, boolean measured) {
        this.measured = measured;
        this.serviceNanos = new LongAdder[partitions];
        for (int p = 0; p < partitions; p++) {
            serviceNanos[p] = new LongAdder();
        }
    }

    /** A leaf answered a sub-request of {@code partition} after {@code serviceNanos} of work. */
    public void record(int partition, long serviceNanos) {
        if (measured && partition >= 0 && partition < this.serviceNanos.length) {
            this.serviceNanos[partition].add(Math.max(1, serviceNanos));
        }
    }

    /** Each partition's service time so far. */
    public long[] totals() {
        long[] out = new long[serviceNanos.length];
        for (int p = 0; p < out.length; p++) {
            out[p] = serviceNanos[p].sum();
        }
        return out;
    }
}
