package io.hedgerow.leaf.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The service time of the search answers this leaf wrote, per partition, summed since it started:
 * the load the root's placement reads, measured where every root's traffic meets (a root sees only
 * its own). The same quantity a root's {@code PartitionLoad} sums from the answers it reads.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe; {@link #record} runs on event loops for every
 * answer and never blocks (a {@link LongAdder} per partition, made once). {@link #totals} may miss
 * an answer recorded while it reads.
 */
public final class ServedLoad {
    private final Map<Integer, LongAdder> nanos = new ConcurrentHashMap<>();

    void record(int partition, long serviceNanos) {
        if (partition >= 0 && serviceNanos > 0) {
            nanos.computeIfAbsent(partition, p -> new LongAdder()).add(serviceNanos);
        }
    }

    /** Each partition's service time so far, in nanoseconds, by partition. */
    public Map<Integer, Long> totals() {
        Map<Integer, Long> out = new TreeMap<>();
        nanos.forEach((p, sum) -> out.put(p, sum.sum()));
        return out;
    }
}
