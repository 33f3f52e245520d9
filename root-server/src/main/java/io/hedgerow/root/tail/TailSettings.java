package io.hedgerow.root.tail;

import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How the root guards against queries of death and stragglers: canary requests, the blocklist and
 * the known-safe set, the good-enough cutoff, and the result cache. Immutable; parsed once at
 * start-up.
 *
 * @param canaries            partitions a query is first sent to alone, before the wide fan-out: 0
 *                            (no canary), 1 or 2
 * @param skipKnownSafe       whether a query whose fingerprint succeeded recently skips the canary
 * @param canaryTimeout       how long the canary may take before the query is deemed dangerous;
 *                            learnt from recent leaf (sub-request) latency
 * @param cutoff              how long the root waits for all partitions before a good-enough result
 *                            may be returned; learnt from recent query latency
 * @param minCoverage         the fraction of documents answered partitions must hold for a result to
 *                            be returned at the cutoff, when a request names none: (0, 1]; 1 waits for
 *                            every partition (up to the deadline)
 * @param window              how far back the cutoff's latency window looks (at least 10 ms; kept as
 *                            ten buckets); the canary timeout reads the hedge delay's windows
 * @param minSamples          the fewest samples a window needs before its percentile is used; until
 *                            then each limit is its maximum
 * @param blocklistTtl        how long a dangerous query stays refused
 * @param blocklistMaxEntries the most fingerprints the blocklist holds
 * @param knownSafeTtl        how long a fingerprint that succeeded stays known safe
 * @param knownSafeMaxEntries the most fingerprints the known-safe set holds
 * @param cacheTtl            how long a cached result may be served
 * @param cacheMaxEntries     the most results the cache holds; 0 turns the cache off
 * @param cacheMaxBytes       the most bytes (estimated) the cached results may take
 */
public record TailSettings(
        int canaries,
        boolean skipKnownSafe,
        AdaptiveLimit canaryTimeout,
        AdaptiveLimit cutoff,
        double minCoverage,
        Duration window,
        int minSamples,
        Duration blocklistTtl,
        int blocklistMaxEntries,
        Duration knownSafeTtl,
        int knownSafeMaxEntries,
        Duration cacheTtl,
        int cacheMaxEntries,
        long cacheMaxBytes) {

    /** The most canary partitions. */
    public static final int MAX_CANARIES = 2;
    private static final Duration MIN_WINDOW = Duration.ofMillis(10);

    public TailSettings {
        if (canaries < 0 || canaries > MAX_CANARIES) {
            throw new IllegalArgumentException("canaries: " + canaries + " (expected: 0, 1 or 2)");
        }
        Objects.requireNonNull(canaryTimeout, "canaryTimeout");
        Objects.requireNonNull(cutoff, "cutoff");
        requireMinCoverage(minCoverage);
        Objects.requireNonNull(window, "window");
        if (window.compareTo(MIN_WINDOW) < 0) {
            throw new IllegalArgumentException("window: " + Durations.format(window) + " (expected: >= 10ms)");
        }
        if (minSamples < 1) {
            throw new IllegalArgumentException("minSamples: " + minSamples + " (expected: >= 1)");
        }
        requirePositive("blocklistTtl", blocklistTtl);
        requireAtLeastOne("blocklistMaxEntries", blocklistMaxEntries);
        requirePositive("knownSafeTtl", knownSafeTtl);
        requireAtLeastOne("knownSafeMaxEntries", knownSafeMaxEntries);
        requirePositive("cacheTtl", cacheTtl);
        if (cacheMaxEntries < 0) {
            throw new IllegalArgumentException("cacheMaxEntries: " + cacheMaxEntries + " (expected: >= 0; 0 turns the cache off)");
        }
        if (cacheMaxBytes < 1) {
            throw new IllegalArgumentException("cacheMaxBytes: " + cacheMaxBytes + " (expected: >= 1)");
        }
    }

    /**
     * One canary partition, always (no known-safe skip); canary timeout 3 x the p99 of leaf latency
     * in [100 ms, 1 s]; good-enough cutoff 1.5 x the p99 of query latency in [10 ms, 1 s],
     * at 90% of the documents; windows of 10 s trusted from 100 samples; blocklist 10 minutes and
     * 10,000 fingerprints; known safe 1 hour and 100,000 fingerprints; cache 30 s, 10,000 results
     * and 64 MiB.
     *
     * <p>Why these numbers. <b>Canary 3 x p99, at least 100 ms</b>: a false alarm refuses a good
     * query for ten minutes, so the canary must be given far more than a normal sub-request (0.5 to 3
     * ms here) and more than a GC pause or a 1 s stall hedging would otherwise cover; 1 s still ends
     * the wait for a leaf that hangs. <b>Cutoff 1.5 x p99</b> of query latency, cut-off queries
     * included: the cutoff rises until only about 1% of queries reach it, so tainted results stay
     * rare ({@link GoodEnoughCutoff}); at least 10 ms so that ordinary jitter of a fast cluster never
     * taints.
     * <b>90%</b>: with the default 16 partitions, one partition (6.25%) may be missing from a result
     * at the cutoff, which is what lets the cutoff end a query stuck on one straggler; at 95% (the
     * first default) no partition of 16 could be missing and the cutoff never did anything. <b>100
     * samples</b>: a p99 resting on at least one observation above it. <b>Known-safe on</b>: a canary
     * before every query added 31% to the p50 of the default request at half capacity (2.10 against
     * 1.60 ms with {@code --canaries 0}, docs/benchmarks/request-path.md), over the 10% the design
     * allows; a query that ran safely in the last hour skips it, and every shape is canaried
     * again at least once per hour. <b>Known safe 1 hour, 100,000 fingerprints</b> (5 minutes and
     * 10,000 before issue 30): a varied workload repeats a shape minutes apart, not seconds, so with 5
     * minutes most fan-outs paid a serial canary round trip first. An hour still canaries every shape
     * again after a leaf release (a rolling restart takes minutes, the hour bounds how long a new query
     * of death can hide behind an old mark); 100,000 fingerprints of a few hundred bytes each are tens
     * of MB at most, and Caffeine's size bound keeps the frequent ones. Still keyed by the parsed query
     * ({@link QueryFingerprint}): a re-spelling of a safe query is safe, a query merely sharing a term
     * with one is not, so a query of death still costs at most 2 leaves.
     */
    public static TailSettings defaults() {
        return new TailSettings(1, true,
                AdaptiveLimit.adaptive(99.0, 3.0, Duration.ofMillis(100), Duration.ofSeconds(1)),
                AdaptiveLimit.adaptive(99.0, 1.5, Duration.ofMillis(10), Duration.ofSeconds(1)),
                0.9, Duration.ofSeconds(10), 100,
                Duration.ofMinutes(10), 10_000,
                Duration.ofHours(1), 100_000,
                Duration.ofSeconds(30), 10_000, 64L << 20);
    }

    /** True when queries go to canary partitions first. */
    public boolean canaryEnabled() {
        return canaries > 0;
    }

    /** True when results are cached. */
    public boolean cacheEnabled() {
        return cacheMaxEntries > 0;
    }

    /**
     * Checks a minimum coverage, the cluster's or a request's.
     *
     * @throws IllegalArgumentException naming the value and the accepted range
     */
    public static double requireMinCoverage(double minCoverage) {
        if (!(minCoverage > 0 && minCoverage <= 1)) {
            throw new IllegalArgumentException("min_coverage: " + minCoverage + " (expected: > 0.0 and <= 1.0)");
        }
        return minCoverage;
    }

    public TailSettings withCanaries(int value) {
        return new TailSettings(value, skipKnownSafe, canaryTimeout, cutoff, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withSkipKnownSafe(boolean value) {
        return new TailSettings(canaries, value, canaryTimeout, cutoff, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withCanaryTimeout(AdaptiveLimit value) {
        return new TailSettings(canaries, skipKnownSafe, value, cutoff, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withCutoff(AdaptiveLimit value) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, value, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withMinCoverage(double value) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, value, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withWindow(Duration value) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, minCoverage, value, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withMinSamples(int value) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, minCoverage, window, value,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries,
                cacheMaxBytes);
    }

    public TailSettings withBlocklist(Duration ttl, int maxEntries) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, minCoverage, window, minSamples,
                ttl, maxEntries, knownSafeTtl, knownSafeMaxEntries, cacheTtl, cacheMaxEntries, cacheMaxBytes);
    }

    public TailSettings withKnownSafe(Duration ttl, int maxEntries) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, ttl, maxEntries, cacheTtl, cacheMaxEntries, cacheMaxBytes);
    }

    public TailSettings withCache(Duration ttl, int maxEntries, long maxBytes) {
        return new TailSettings(canaries, skipKnownSafe, canaryTimeout, cutoff, minCoverage, window, minSamples,
                blocklistTtl, blocklistMaxEntries, knownSafeTtl, knownSafeMaxEntries, ttl, maxEntries, maxBytes);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(name + ": " + Durations.format(value) + " (expected: > 0)");
        }
    }

    private static void requireAtLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 1)");
        }
    }
}
