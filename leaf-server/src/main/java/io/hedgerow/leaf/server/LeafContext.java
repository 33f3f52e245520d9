package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every connection handler and task of one leaf shares.
 *
 * @param inflight tasks queued or running, by request id, so a CANCEL can find them. Request ids
 *                 are unique per leaf because the root makes them unique per root process.
 * @param faults   injected delays (none unless the leaf was started with fault injection)
 */
record LeafContext(
        OpenPartitions partitions,
        SearchScheduler scheduler,
        ConcurrentHashMap<Long, LeafTask> inflight,
        Ticker ticker,
        FaultControl faults) {
}
