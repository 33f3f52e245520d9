package io.hedgerow.leaf.server;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.leaf.fault.QueryOfDeath;

/**
 * What every connection handler and task of one leaf shares.
 *
 * @param inflight tasks queued or running, so a cancel can find them, and early twin cancels
 * @param faults   injected delays and stalls (none unless the leaf was started with fault injection)
 * @param counters what the leaf did with cancels, deadlines and faults
 * @param peers    connections to other leaves, for tied requests' cancels
 * @param sliceNanos budget of one slice of a search; 0: searches are not sliced
 * @param queryOfDeath halts the leaf when a query holds its token ({@link QueryOfDeath#NONE} unless the
 *                 leaf was started with fault injection and a token)
 * @param drain    whether the leaf is shutting down, and its root connections to tell
 * @param clusterSecret the secret every Hello must carry; null: none
 */
record LeafContext(
        OpenPartitions partitions,
        SearchScheduler scheduler,
        InflightTasks inflight,
        Ticker ticker,
        FaultControl faults,
        LeafCounters counters,
        PeerCancels peers,
        long sliceNanos,
        QueryOfDeath queryOfDeath,
        LeafDrain drain,
        String clusterSecret) {
}
