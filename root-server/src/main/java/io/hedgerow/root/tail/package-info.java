/**
 * Tail policy at the root beyond hedging: canary requests against queries of death, good-enough
 * results after a dynamic cutoff, and a result cache that knows which results are tainted. Pure
 * code with an injected {@link io.hedgerow.common.time.Ticker}: no Netty, no threads of its own
 * (the Caffeine caches run their upkeep on the calling threads), so tests drive time exactly and
 * the Gatherer only asks, records and counts.
 *
 * <h2>Why</h2>
 * "The Tail at Scale" (Dean and Barroso, CACM 2013; {@code ../shared/reference/000_*.txt}), on
 * large information retrieval systems: a query that crashes the server it runs on would, fanned out
 * to thousands of leaves, crash them all. <b>Canary requests</b> send it to one or two leaves
 * first, and to the rest only once those answered; a canary that crashes its leaf, loses its
 * connection or times out costs one leaf, and the query is refused from then on. And <b>good
 * enough</b>: once the answered partitions hold nearly all the documents, waiting for the last slow
 * one buys little; return what has come, marked as such. Dean's talk ({@code 001_*.txt}) calls such
 * results <b>tainted</b> and warns that a cache must not keep serving them.
 *
 * <h2>The pieces</h2>
 * <ul>
 * <li>{@link io.hedgerow.root.tail.QueryFingerprint}: the query as the leaves parse it (the index's
 *     analyzer and parser, through an {@link io.hedgerow.root.tail.IndexQueryParser}), so one query
 *     of death is one blocklist entry however it is spelt, and two different queries never share
 *     one; {@link io.hedgerow.root.tail.CacheKey} adds the settings that shape a result.</li>
 * <li>{@link io.hedgerow.root.tail.CanaryTimeout}: how long a canary may take, 3 x the p99 of
 *     recent leaf latency in [100 ms, 1 s] by default.</li>
 * <li>{@link io.hedgerow.root.tail.Blocklist}: refused fingerprints, with reason and time, bounded
 *     and expiring; listed and cleared on the admin endpoint.</li>
 * <li>{@link io.hedgerow.root.tail.KnownSafe}: fingerprints that succeeded recently, which may skip
 *     the canary.</li>
 * <li>{@link io.hedgerow.root.tail.GoodEnoughCutoff}: the cutoff, 1.5 x the p99 of recent
 *     query latency in [10 ms, 1 s] by default, and the decision to stop waiting once it
 *     has passed and coverage reaches {@code min_coverage}.</li>
 * <li>{@link io.hedgerow.root.tail.ResultCache}: results by key; complete ones served, tainted ones
 *     kept but never served as complete, and refreshed by the next request; a store keeps the
 *     better entry, and a clear invalidates the runs in flight.</li>
 * <li>{@link io.hedgerow.root.tail.AdaptiveLimit} and {@link io.hedgerow.root.tail.ScaledPercentile}:
 *     the "percentile times a factor, clamped" limit both timeouts share;
 *     {@link io.hedgerow.root.tail.TailSettings}: the configuration of all of the above.</li>
 * </ul>
 *
 * <p>One instance of each per root, shared by all event loops: every hot-path call (fingerprint,
 * blocklist check, cache lookup, reading a limit, recording a latency) is lock-free in the common
 * case.
 */
package io.hedgerow.root.tail;
