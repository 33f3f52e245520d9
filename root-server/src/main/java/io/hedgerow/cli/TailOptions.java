package io.hedgerow.cli;

import io.hedgerow.leaf.server.LeafCommand;
import io.hedgerow.root.tail.TailSettings;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The root's canary, good-enough and result-cache options, shared by {@code root}, {@code local}
 * and {@code demo}. Defaults are {@link TailSettings#defaults()}.
 */
final class TailOptions {
    @Option(names = "--canaries", paramLabel = "N", defaultValue = "1",
            description = "Partitions a query is first sent to alone, before the others; a canary that crashes its"
                    + " leaf or times out gets the query refused and blocklisted. 0 turns canaries off"
                    + " (default: ${DEFAULT-VALUE}; at most 2).")
    int canaries;

    @Option(names = "--canary-skip-known-safe", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Skip the canary for a query whose canaried run succeeded in the last hour (default:"
                    + " on; --no-canary-skip-known-safe canaries every query).")
    boolean skipKnownSafe;

    @Option(names = "--canary-timeout", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "A fixed canary timeout instead of the adaptive one (3 x the p99 of recent sub-request"
                    + " latency, in [100ms, 1s]).")
    Duration canaryTimeout;

    @Option(names = "--blocklist-ttl", paramLabel = "DURATION", defaultValue = "10m",
            converter = LeafCommand.DurationConverter.class,
            description = "How long a query of death stays refused (default: ${DEFAULT-VALUE}).")
    Duration blocklistTtl;

    @Option(names = "--min-coverage", paramLabel = "FRACTION", defaultValue = "0.9",
            description = "Past the good-enough cutoff, answer once the answered partitions hold this fraction of the"
                    + " documents, without the stragglers (marked tainted); 1 waits for every partition; 0.9 lets one of 16"
                    + " partitions go. Queries may name their own min_coverage (default: ${DEFAULT-VALUE}).")
    double minCoverage;

    @Option(names = "--cutoff", paramLabel = "DURATION", converter = LeafCommand.DurationConverter.class,
            description = "A fixed good-enough cutoff instead of the adaptive one.")
    Duration cutoff;

    @Option(names = "--cutoff-factor", paramLabel = "F", defaultValue = "1.5",
            description = "The adaptive cutoff is this factor times the p99 of recent query latency: higher"
                    + " taints fewer results and waits longer for stragglers (default: ${DEFAULT-VALUE}).")
    double cutoffFactor;

    @Option(names = "--cutoff-min", paramLabel = "DURATION", defaultValue = "10ms",
            converter = LeafCommand.DurationConverter.class,
            description = "Lower bound of the adaptive cutoff (default: ${DEFAULT-VALUE}).")
    Duration cutoffMin;

    @Option(names = "--cutoff-max", paramLabel = "DURATION", defaultValue = "1s",
            converter = LeafCommand.DurationConverter.class,
            description = "Upper bound of the adaptive cutoff (default: ${DEFAULT-VALUE}).")
    Duration cutoffMax;

    @Option(names = "--cache-entries", paramLabel = "N", defaultValue = "10000",
            description = "Results the root caches; 0 turns the cache off (default: ${DEFAULT-VALUE}).")
    int cacheEntries;

    @Option(names = "--cache-ttl", paramLabel = "DURATION", defaultValue = "30s",
            converter = LeafCommand.DurationConverter.class,
            description = "How long a cached result may be served (default: ${DEFAULT-VALUE}).")
    Duration cacheTtl;

    @Option(names = "--cache-max-mb", paramLabel = "MB", defaultValue = "64",
            description = "Memory the cached results may take, estimated (default: ${DEFAULT-VALUE}).")
    long cacheMaxMegabytes;

    /** @throws IllegalArgumentException naming the first option out of range */
    TailSettings toSettings() {
        TailSettings defaults = TailSettings.defaults();
        if (cacheMaxMegabytes < 1) {
            throw new IllegalArgumentException("--cache-max-mb: " + cacheMaxMegabytes + " (expected: >= 1)");
        }
        return defaults
                .withCanaries(canaries)
                .withSkipKnownSafe(skipKnownSafe)
                .withCanaryTimeout(defaults.canaryTimeout().withFixed(canaryTimeout))
                .withBlocklist(blocklistTtl, defaults.blocklistMaxEntries())
                .withMinCoverage(minCoverage)
                .withCutoff(defaults.cutoff().withFactor(cutoffFactor).withBounds(cutoffMin, cutoffMax).withFixed(cutoff))
                .withCache(cacheTtl, cacheEntries, cacheMaxMegabytes << 20);
    }
}
