/**
 * Hedging policy at the root: when a partition's sub-request gets a second copy, and how much extra
 * load that may cost. Pure code with an injected {@link io.hedgerow.common.time.Ticker}: no Netty,
 * no threads, so the tests drive time exactly and the Gatherer only asks and counts.
 *
 * <h2>Why</h2>
 * A query waits for all of its partitions, so the slowest sub-request sets its latency: when each
 * sub-request is slow one time in a hundred, about 15% of queries over 16 partitions are slow. "The Tail at Scale" (Dean
 * and Barroso, CACM 2013; {@code ../shared/reference/000_*.txt}) answers within the request:
 * <ul>
 * <li><b>Hedged requests</b>: send the sub-request to one replica, and if it is still unanswered
 *     after the p95 of expected latency, send a backup to another replica; take the first answer
 *     and cancel the other. About 5% extra requests buy a much shorter tail: in Dean's talk
 *     ("Achieving Rapid Response Times", {@code 001_*.txt}) a backup after 10 ms took a p99.9 of
 *     994 ms down to 50 ms.</li>
 * <li><b>Tied requests</b>: enqueue the sub-request on two replicas at nearly the same time, each
 *     naming the other; the leaf that starts its copy first tells the other leaf to drop its copy
 *     if still queued. Queueing, the largest source of variance, is then paid only once, and the
 *     copies that both run are the waste (about 1% in the paper).</li>
 * </ul>
 *
 * <h2>The pieces</h2>
 * <ul>
 * <li>{@link io.hedgerow.api.HedgeMode}: off, hedged or tied, per query or the cluster's
 *     default.</li>
 * <li>{@link io.hedgerow.root.hedge.RequestClass}: cheap or expensive query shape, read from the
 *     query text, so each class learns its own latency.</li>
 * <li>{@link io.hedgerow.root.hedge.HedgeDelay}: the hedge delay, the p95 (by default) of the last
 *     10 s of the class's sub-request latency in HdrHistogram windows, falling back to all classes,
 *     clamped; or a fixed delay. The Gatherer records every answered sub-request and asks for the
 *     delay when it sends a primary.</li>
 * <li>{@link io.hedgerow.root.hedge.HedgeBudget}: every primary deposits, every backup withdraws,
 *     over a sliding window, as Finagle's {@code RetryBudget} does for retries; when the budget is
 *     spent the backup is not sent and the refusal is counted. Hedging therefore adds at most 5%
 *     (by default) plus a small reserve, even when a whole cluster slows down and every
 *     sub-request passes its hedge delay: a budget, not the delay, is what keeps hedging from
 *     amplifying an overload.</li>
 * <li>{@link io.hedgerow.root.hedge.RoundTrip}: the network round trip to each leaf, so a tied
 *     request's second copy leaves about two network trips after the first (at most 1 ms).</li>
 * <li>{@link io.hedgerow.root.hedge.HedgeSettings}: the configuration of all of the above.</li>
 * </ul>
 *
 * <p>One instance of each per root, shared by all event loops: the hot paths (recording, reading
 * the delay, depositing) are wait-free counter updates and volatile reads.
 */
package io.hedgerow.root.hedge;
