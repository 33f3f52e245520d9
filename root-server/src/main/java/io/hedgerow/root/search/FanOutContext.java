package io.hedgerow.root.search;

import io.hedgerow.common.time.Ticker;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cost.CostControl;
import io.hedgerow.root.hedge.HedgeBudget;
import io.hedgerow.root.hedge.HedgeDelay;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.hedge.RoundTrip;
import io.hedgerow.root.metrics.RootMetrics;
import io.hedgerow.root.tail.IndexQueryParser;
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
public record FanOutContext(
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

    /**
     * The shared state of a fresh root: its policies at their settings in {@code cluster}'s
     * configuration, each reading {@code ticker}. The Netty root ({@link io.hedgerow.root.fanout.FanOut}) and the detached
     * one the simulator drives ({@link io.hedgerow.root.fanout.DetachedRoot}) both start from here, so neither misses a piece.
     *
     * @param parser parses queries as the leaves do, for their fingerprints
     */
    public static FanOutContext of(ClusterState cluster, DispatchPolicy policy, RootMetrics metrics, Ticker ticker,
            IndexQueryParser parser) {
        HedgeSettings hedge = cluster.config().hedge();
        HedgeDelay hedgeDelay = new HedgeDelay(hedge, ticker);
        return new FanOutContext(cluster, policy, metrics, ticker, hedgeDelay, new HedgeDelay(hedge, ticker),
                new HedgeBudget(hedge, ticker), new RoundTrip(cluster.leaves().size()),
                new TailGuard(cluster.config().tail(), hedgeDelay, ticker, parser),
                CostControl.of(cluster.config().batchAdmission(), cluster.leaves().size(), ticker));
    }
}
