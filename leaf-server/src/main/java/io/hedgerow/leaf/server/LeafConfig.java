package io.hedgerow.leaf.server;

import io.hedgerow.common.net.LinkTls;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.wire.WireCodec;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.search.QueryCacheSettings;
import io.hedgerow.leaf.search.QueryLimits;
import io.hedgerow.leaf.write.LiveSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one leaf server.
 *
 * @param indexDir         the index directory (with {@code index.json}) whose partitions it may serve
 * @param host             address to bind
 * @param port             TCP port; 0 picks a free one
 * @param workers          search threads
 * @param scheduling       how deep each scheduling class's queue is (a full one answers busy at once)
 *                         and the starvation guard that lets lower classes progress
 * @param ioThreads        Netty event loops
 * @param maxFrameBytes    largest frame accepted from a root
 * @param faultInjection   whether the leaf obeys requests to inject faults (off unless asked for: fault
 *                         injection exists for tests and demos)
 * @param initialDelay     a delay injected from the start, or null; only with {@code faultInjection}
 * @param initialStall     a stall injected from the start, or null; only with {@code faultInjection}
 * @param warmup           how long newly opened partitions run warm-up queries before the leaf
 *                         acknowledges them (zero: none)
 * @param slice            the budget of one slice of a search: a search that has used it while other
 *                         work of its class or a higher one waits yields its worker and queues the rest
 *                         behind that work (zero: searches run to the end, unsliced)
 * @param limits           the cost guards that refuse queries that would explode, before they run
 * @param queryOfDeath     a token that makes the leaf halt when a query contains it (see
 *                         {@link io.hedgerow.leaf.fault.QueryOfDeath}), or null; only with {@code faultInjection}
 * @param drainTimeout     how long a closing leaf keeps its connections open for the work it holds
 *                         (new work is refused as draining meanwhile); zero: it closes at once
 * @param clusterSecret    the secret every connection's Hello must carry, or null to serve any peer
 *                         (a leaf started by hand without {@code --cluster-secret-file})
 * @param live             live writes: the leaf's stable name for its live copies, refresh and commit
 * @param tls              TLS on the leaf's port and on its links to other leaves ({@link LinkTls}); null:
 *                         plaintext
 * @param queryCache       Lucene's query cache, one per leaf shared by its partitions, or off
 *                         ({@code --query-cache})
 */
public record LeafConfig(
        Path indexDir,
        String host,
        int port,
        int workers,
        SchedulingConfig scheduling,
        int ioThreads,
        int maxFrameBytes,
        boolean faultInjection,
        InjectedDelay initialDelay,
        InjectedStall initialStall,
        Duration warmup,
        Duration slice,
        QueryLimits limits,
        String queryOfDeath,
        Duration drainTimeout,
        String clusterSecret,
        LiveSettings live,
        TlsFiles tls,
        QueryCacheSettings queryCache) {

    /** How long a leaf started from the command line waits at most, when it closes, for the work it holds. */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(2);

    public LeafConfig {
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(queryCache, "queryCache");
        if (drainTimeout.isNegative()) {
            throw new IllegalArgumentException("drainTimeout: " + drainTimeout + " (expected: >= 0)");
        }
        if (clusterSecret != null && clusterSecret.isBlank()) {
            throw new IllegalArgumentException("clusterSecret: blank (expected: a non-blank secret, or null for none)");
        }
        Objects.requireNonNull(indexDir, "indexDir");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        Objects.requireNonNull(scheduling, "scheduling");
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads: " + ioThreads + " (expected: >= 1)");
        }
        Objects.requireNonNull(warmup, "warmup");
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup: " + warmup + " (expected: >= 0)");
        }
        Objects.requireNonNull(slice, "slice");
        if (slice.isNegative()) {
            throw new IllegalArgumentException("slice: " + slice + " (expected: >= 0)");
        }
        Objects.requireNonNull(limits, "limits");
        if (initialDelay != null && !faultInjection) {
            throw new IllegalArgumentException("initialDelay: " + initialDelay.describe()
                    + " (expected: none unless fault injection is enabled)");
        }
        if (initialStall != null && !faultInjection) {
            throw new IllegalArgumentException("initialStall: " + initialStall.describe()
                    + " (expected: none unless fault injection is enabled)");
        }
        if (queryOfDeath != null && !faultInjection) {
            throw new IllegalArgumentException("queryOfDeath: '" + queryOfDeath
                    + "' (expected: none unless fault injection is enabled)");
        }
        if (queryOfDeath != null && queryOfDeath.isEmpty()) {
            throw new IllegalArgumentException("queryOfDeath: '' (expected: a non-empty token, or null for none)");
        }
    }

    /**
     * Loopback, a free port, a worker per core, the default queue depths and starvation guard, one
     * event loop, no fault injection, no warm-up (the command line warms by default; tests and
     * embedded clusters do not), no time-slicing (the command line slices by default), the
     * default cost guards, no drain on close (the command line drains for {@link #DEFAULT_DRAIN_TIMEOUT}),
     * no cluster secret.
     */
    public static LeafConfig defaults(Path indexDir) {
        return new LeafConfig(indexDir, "127.0.0.1", 0, Runtime.getRuntime().availableProcessors(),
                SchedulingConfig.defaults(), 1, WireCodec.DEFAULT_MAX_FRAME_BYTES, false, null, null, Duration.ZERO,
                Duration.ZERO, QueryLimits.defaults(), null, Duration.ZERO, null, LiveSettings.defaults(), null, QueryCacheSettings.off());
    }

    public LeafConfig withPort(int newPort) {
        return new LeafConfig(indexDir, host, newPort, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    public LeafConfig withHost(String newHost) {
        return new LeafConfig(indexDir, newHost, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    public LeafConfig withWorkers(int newWorkers) {
        return new LeafConfig(indexDir, host, port, newWorkers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** Queue depths per class and the starvation guard. */
    public LeafConfig withScheduling(SchedulingConfig newScheduling) {
        return new LeafConfig(indexDir, host, port, workers, newScheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    public LeafConfig withMaxFrameBytes(int newMax) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, newMax, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** Obey (or refuse) requests to inject faults; off by default. */
    public LeafConfig withFaultInjection(boolean enabled) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, enabled, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** How long to run newly opened partitions' code before they serve (zero: not at all). */
    public LeafConfig withWarmup(Duration newWarmup) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, newWarmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** A delay in effect from the start (null for none); needs {@link #withFaultInjection fault injection}. */
    public LeafConfig withInitialDelay(InjectedDelay delay) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, delay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** A stall in effect from the start (null for none); needs {@link #withFaultInjection fault injection}. */
    public LeafConfig withInitialStall(InjectedStall stall) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, stall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** Slice searches with this budget each (zero: run each search to its end). */
    public LeafConfig withSlice(Duration newSlice) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, newSlice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** Halt when a query contains this token (null: never); needs {@link #withFaultInjection fault injection}. */
    public LeafConfig withQueryOfDeath(String token) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, token, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** The cost guards queries are checked against. */
    public LeafConfig withLimits(QueryLimits newLimits) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, newLimits, queryOfDeath, drainTimeout, clusterSecret, live, tls, queryCache);
    }

    /** How long closing waits for held work (zero: close at once). */
    public LeafConfig withDrainTimeout(Duration timeout) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, timeout, clusterSecret, live, tls, queryCache);
    }

    /** The secret every Hello must carry (null: none required). */
    public LeafConfig withClusterSecret(String secret) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, secret, live, tls, queryCache);
    }

    /** How live writes are kept, refreshed and committed. */
    public LeafConfig withLive(LiveSettings value) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, value, tls, queryCache);
    }

    /** Serve TLS with these files, and dial other leaves over TLS (null: plaintext). */
    public LeafConfig withTls(TlsFiles files) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, files, queryCache);
    }

    /** Lucene's query cache on or off, and its bounds. */
    public LeafConfig withQueryCache(QueryCacheSettings settings) {
        return new LeafConfig(indexDir, host, port, workers, scheduling, ioThreads, maxFrameBytes, faultInjection, initialDelay, initialStall, warmup, slice, limits, queryOfDeath, drainTimeout, clusterSecret, live, tls, settings);
    }

    @Override
    public String toString() {
        // Never print the secret.
        return "LeafConfig[indexDir=" + indexDir + ", host=" + host + ", port=" + port + ", workers=" + workers
                + ", drainTimeout=" + drainTimeout + ", live=" + live + ", clusterSecret=" + (clusterSecret == null ? "none" : "set") + ", tls=" + (tls == null ? "off" : tls.certificateChain()) + ", queryCache=" + queryCache.describe() + "]";
    }
}
