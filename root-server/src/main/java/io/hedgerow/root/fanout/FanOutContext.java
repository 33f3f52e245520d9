package io.hedgerow.root.fanout;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cost.CostControl;
import io.hedgerow.root.hedge.HedgeBudget;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.RoundTrip;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.TailGuard;

/**
 * What every search of one root shares.
 *
 * @param ticker     the clock: every search's times, deadlines and timers are on it
 * @param hedgeDelay when a query-phase (or canary) sub-request gets a backup, from recent
 *                   sub-request latency per request class
 * @param fetchDelay when a fetch gets a backup, from recent fetch latency per request class
 * @param budget     how many extra sub-requests (backups, twins, retries) the cluster can afford
 * @param roundTrip  network round trips to each leaf, for the tied-request delay
 * @param tail       canaries and the blocklist, the good-enough cutoff, the result cache
 * @param costs      what queries cost at the leaves (learnt per query, sent as a hint), and the
 *                   admission of batch sub-requests to each leaf
 */
record FanOutContext(
        ClusterState cluster,
        DispatchPolicy policy,
        RootMetrics metrics,
        Ticker ticker,
        HedgeDelay hedgeDelay,
        HedgeDelay fetchDelay,
        HedgeBudget budget,
        RoundTrip roundTrip,
        TailGuard tail,
        CostControl costs) {
}
