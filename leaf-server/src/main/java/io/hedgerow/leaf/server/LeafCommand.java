package io.hedgerow.leaf.server;

import io.hedgerow.common.net.ClusterSecret;
import io.hedgerow.common.net.TlsFiles;
import io.hedgerow.common.time.Durations;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.http.LeafHttpConfig;
import io.hedgerow.leaf.search.QueryCacheSettings;
import io.hedgerow.leaf.search.QueryLimits;
import io.hedgerow.leaf.write.LiveSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code hedgerow leaf}: runs one leaf server in the foreground until interrupted. */
@Command(name = "leaf", mixinStandardHelpOptions = true,
        description = {"Run a leaf server: it serves the partitions of one index that a root assigns to it.",
                "Runs in the foreground until Ctrl-C."})
public final class LeafCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--index", required = true, paramLabel = "DIR",
            description = "Index directory (the one holding index.json), e.g. data/europarl.")
    private Path indexDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    private String host;

    @Option(names = "--port", defaultValue = "0", description = "TCP port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "0",
            description = "HTTP port for probes and metrics (/health, /ready, /metrics) on --host; 0 picks a free one,"
                    + " which the root's /cluster names (default: ${DEFAULT-VALUE}).")
    private int httpPort;

    @Option(names = "--no-http", description = "Open no HTTP port (no probes, no /metrics).")
    private boolean noHttp;

    @Option(names = "--workers", description = "Search threads (default: one per core this JVM may use,"
            + " Runtime.availableProcessors(), which counts a container's CPU limit: here ${DEFAULT-VALUE}). With"
            + " lanes on, the expensive lane adds max(1, workers - 1) threads, parked unless expensive work waits."
            + " Several leaves on one machine should share its cores: `hedgerow local` gives each"
            + " max(1, cores / leaves).")
    private int workers = Runtime.getRuntime().availableProcessors();

    @Mixin
    private SchedulingFlags schedulingFlags;

    @Option(names = "--max-query-chars", paramLabel = "N", defaultValue = "8192",
            description = "Refuse longer query strings (default: ${DEFAULT-VALUE}).")
    private int maxQueryChars;

    @Option(names = "--max-clauses", paramLabel = "N", defaultValue = "1024",
            description = "Refuse queries with more clauses, each term counting once per default field (default and"
                    + " most: ${DEFAULT-VALUE}).")
    private int maxClauses;

    @Option(names = "--max-expansions", paramLabel = "N", defaultValue = "1024",
            description = "Refuse a wildcard, prefix, fuzzy, regexp or range query that matches more terms than this in"
                    + " a partition (default: ${DEFAULT-VALUE}).")
    private int maxExpansions;

    @Option(names = "--max-expansions-total", paramLabel = "N", defaultValue = "4096",
            description = "Refuse a query whose wildcard, prefix, fuzzy, regexp and range parts match more terms than"
                    + " this together in a partition (default: ${DEFAULT-VALUE}).")
    private int maxExpansionsTotal;

    @Option(names = "--max-expansion-postings", paramLabel = "N", defaultValue = "2000000",
            description = "Refuse a query whose wildcard, prefix, fuzzy, regexp and range parts match terms with more"
                    + " postings (summed document frequencies) than this in a partition (default: ${DEFAULT-VALUE}).")
    private long maxExpansionPostings;

    @Option(names = "--max-terms-visited", paramLabel = "N", defaultValue = "40960",
            description = "Refuse a query whose wildcard, prefix, fuzzy, regexp and range parts read more terms than"
                    + " this to find their matches in a partition, matching or not, e.g. /a.*zzzz/"
                    + " (default: ${DEFAULT-VALUE}).")
    private long maxTermsVisited;

    @Option(names = "--max-phrase-cost", paramLabel = "N", defaultValue = "100",
            description = "Refuse a phrase whose terms times its slop plus one is more than this, e.g. \"a b c\"~40"
                    + " costs 123 (default: ${DEFAULT-VALUE}).")
    private int maxPhraseCost;

    @Option(names = "--allow-leading-wildcard",
            description = "Accept wildcards, prefixes and regexps that start with a pattern (e.g. *ment), which read"
                    + " every partition's whole term dictionary; refused by default.")
    private boolean allowLeadingWildcard;

    @Option(names = "--query-cache", paramLabel = "on|off", defaultValue = "off",
            description = "Lucene's query cache, one per leaf shared by its partitions: on caches a search's non-scoring"
                    + " clauses (a JSON body's filter, a search sorted by fields only) per segment of 256 documents or"
                    + " more once they recur (Lucene's usage-tracking policy; a single term or exists never), at most"
                    + " 1,000 queries and 32 MiB or a twentieth of the heap; off runs every search without one"
                    + " (default: ${DEFAULT-VALUE}).")
    private String queryCache;

    @Option(names = "--port-file", paramLabel = "FILE",
            description = "Write the bound port to this file once listening (used by 'hedgerow local').")
    private Path portFile;

    @Option(names = "--fault-injection",
            description = "Obey requests to inject faults (delays and stalls), as a root's /admin/leaves/{n}/delay and "
                    + "/stall endpoints send them. For tests and demos; off by default, and the leaf then refuses them.")
    private boolean faultInjection;

    @Option(names = "--inject-delay", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --fault-injection: from the start, hold sub-requests for DURATION (e.g. 50ms) on "
                    + "their worker, as a slow disk would.")
    private Duration injectDelay;

    @Option(names = "--inject-delay-probability", paramLabel = "P",
            description = "With --inject-delay: the chance, 0..1, that one sub-request is delayed (default: 1).")
    private Double injectDelayProbability;

    @Option(names = "--inject-delay-distribution", paramLabel = "KIND", converter = DistributionConverter.class,
            description = "With --inject-delay: 'fixed' holds each delayed sub-request for exactly DURATION; "
                    + "'exponential' for a random time with mean DURATION, at most 1m (default: fixed).")
    private InjectedDelay.Distribution injectDelayDistribution;

    @Option(names = "--inject-delay-for", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --inject-delay: how long the delay lasts before it clears by itself, at most 1h "
                    + "(default: until the leaf exits).")
    private Duration injectDelayFor;

    @Option(names = "--inject-stall", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --fault-injection and --inject-stall-every: from the start, stall every worker for "
                    + "DURATION (e.g. 150ms) once per period, as a GC pause would; the first stall starts at once.")
    private Duration injectStall;

    @Option(names = "--inject-stall-every", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --inject-stall: the period from the start of one stall to the next (e.g. 1s).")
    private Duration injectStallEvery;

    @Option(names = "--inject-stall-for", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --inject-stall: how long the stalls go on before they clear by themselves, at most 1h "
                    + "(default: until the leaf exits).")
    private Duration injectStallFor;

    @Option(names = "--query-of-death", paramLabel = "TOKEN",
            description = "With --fault-injection: halt the leaf at once (exit status " + QueryOfDeath.EXIT_CODE
                    + ", no graceful close) when a search or fetch whose query contains TOKEN (case-sensitive) arrives,"
                    + " as a crash bug in the query parser would.")
    private String queryOfDeath;

    @Option(names = "--warmup", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "30s",
            description = "Run warm-up searches on newly assigned partitions before serving them, so the first real"
                    + " queries do not wait for the JIT: until their rate stops rising, for this long at most, at"
                    + " most half a core; 0s for none (default: ${DEFAULT-VALUE}).")
    private Duration warmup;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "Serve only roots and leaves whose Hello carries the secret in FILE (the cluster's shared"
                    + " secret; 'local' and 'demo' write one to <run dir>/cluster-secret). Without it, the environment"
                    + " variable " + ClusterSecret.ENV + "; without either, any peer is served (a warning is logged).")
    private Path clusterSecretFile;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "Serve TLS on the leaf's port with this certificate chain (PEM), with --tls-key: roots and"
                    + " other leaves must dial TLS. Default: plaintext.")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key of --tls-cert (PEM, PKCS#8).")
    private Path tlsKey;

    @Option(names = "--tls-trust", paramLabel = "PEM",
            description = "With --tls-cert: the certificates (PEM) to trust when dialling other leaves (tied requests'"
                    + " cancels). Default: the leaf's own certificate (a cluster whose leaves share one).")
    private Path tlsTrust;

    @Option(names = "--drain-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            defaultValue = "2s",
            description = "On SIGTERM, refuse new work as draining and answer what the leaf holds for at most this"
                    + " long before closing its connections; 0s closes at once (default: ${DEFAULT-VALUE}).")
    private Duration drainTimeout;

    @Option(names = "--node-id", paramLabel = "NAME",
            description = "This leaf's stable name among the leaves sharing the index directory: its live writes are"
                    + " kept under <index>/live/<build>/node-NAME/, so the leaf started again under NAME, on any port,"
                    + " serves them ('hedgerow local' names its leaves 0..n-1). Default: the leaf claims the first"
                    + " node-auto-N directory no running leaf holds (or its port-PORT one from before), found again on"
                    + " any port when it is the only leaf on its index directory; name leaves that share one.")
    private String nodeId;

    @Option(names = "--zk", paramLabel = "HOST:PORT[,...]",
            description = "Join the cluster on this ZooKeeper ensemble (the roots' --zk): once serving, register as an"
                    + " ephemeral node under the cluster (node id --node-id, or host_port; its address; its served load"
                    + " per partition, every 2 s at most), so the roots' placement sees it leave within the session"
                    + " timeout (4 s) and sees every root's traffic. Deregisters on a clean shutdown. Default: none.")
    private String zk;

    @Option(names = "--zk-cluster", paramLabel = "NAME", defaultValue = CoordinationSettings.DEFAULT_CLUSTER,
            description = "With --zk: the cluster's name, its znode under /hedgerow (default: ${DEFAULT-VALUE}).")
    private String zkCluster;

    @Option(names = "--term-log", paramLabel = "FILE",
            description = "Append a line (time, partition, term, primary) to FILE each time a copy of this leaf is told"
                    + " of a new primary term, or of another primary in a term: the durability checker's evidence of"
                    + " split terms ('hedgerow local --zk' gives each leaf <run dir>/terms/leaf-N.log). Default: none.")
    private Path termLog;

    @Option(names = "--background-phase", paramLabel = "PHASE", defaultValue = "aligned",
            description = "When live writes' periodic refreshes and commits (and the merges they start) run:"
                    + " aligned (at whole multiples of their interval on the wall clock, at the same moments on every"
                    + " leaf, so a search meets them on all leaves at once or on none) or random (at a phase of this"
                    + " leaf's own) (default: ${DEFAULT-VALUE}).")
    private String backgroundPhase;

    @Option(names = "--exit-with-parent", hidden = true,
            description = "Exit when the parent process exits, so a killed 'local' cluster leaves nothing behind.")
    private boolean exitWithParent;

    @Override
    public Integer call() throws Exception {
        LeafServer server;
        try {
            if (!backgroundPhase.equals("aligned") && !backgroundPhase.equals("random")) {
                throw new IllegalArgumentException("--background-phase: '" + backgroundPhase
                        + "' (expected: aligned or random)");
            }
            LeafConfig config = LeafConfig.defaults(indexDir)
                    .withHost(host).withPort(port).withWorkers(workers).withScheduling(schedulingFlags.scheduling())
                    .withLimits(new QueryLimits(maxQueryChars, maxClauses, maxExpansions, allowLeadingWildcard,
                            maxExpansionsTotal, maxExpansionPostings, maxTermsVisited, maxPhraseCost))
                    .withFaultInjection(faultInjection).withInitialDelay(initialDelay()).withInitialStall(initialStall())
                    .withQueryOfDeath(queryOfDeath())
                    .withWarmup(warmup).withSlice(schedulingFlags.slice())
                    .withDrainTimeout(drainTimeout)
                    .withLive(LiveSettings.defaults().withNodeId(nodeId).withAlignedOnClock(backgroundPhase.equals("aligned"))
                            .withTermLog(termLog))
                    .withClusterSecret(ClusterSecret.fromFileOrEnvironment(clusterSecretFile, System.getenv()))
                    .withTls(tls())
                    .withQueryCache(queryCache());
            server = LeafServer.start(config, noHttp ? LeafHttpConfig.disabled() : LeafHttpConfig.onPort(httpPort));
        } catch (IOException | IllegalArgumentException e) {
            spec.commandLine().getErr().println("error: " + e.getMessage());
            return 1;
        }
        MembershipJoin membership;
        try {
            if (zk == null) {
                membership = null;
            } else {
                CoordinationSettings coordination = CoordinationSettings.of(zk, zkCluster);
                NodeId node = server.announceNodeId(); // named in its HelloAck from now on
                String address = LeafMembership.advertisedAddress(host, server.port());
                PrintWriter err = spec.commandLine().getErr();
                membership = MembershipJoin.start(
                        () -> LeafMembership.start(coordination, node, address, server.servedLoad()::totals),
                        (cause, next) -> err.println("warning: --zk " + zk + ": " + cause.getMessage()
                                + "; serving without registering, trying again in " + next.toSeconds() + " s"));
            }
        } catch (IllegalArgumentException e) {
            server.close();
            spec.commandLine().getErr().println("error: --zk " + zk + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (membership != null) {
                membership.close(); // first: the roots' placement hears the leaf go before it drains
            }
            server.close();
            // Printed as well as logged: java.util.logging may have shut down before this hook runs.
            spec.commandLine().getOut().println("leaf stopped (" + server.drainOutcome() + "); "
                    + server.counters().snapshot().describe());
            spec.commandLine().getOut().flush();
            stopped.countDown();
        }, "leaf-shutdown"));
        if (exitWithParent) {
            ExitWithParent.watch(() -> System.exit(0));
        }
        if (portFile != null) {
            writeAtomically(portFile, Integer.toString(server.port()));
        }
        spec.commandLine().getOut().println("leaf listening on " + server.address() + " serving " + indexDir
                + (server.httpAddress().isEmpty() ? "" : "; HTTP on " + server.httpAddress()));
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }

    /** The TLS files the flags name, or null for plaintext. */
    TlsFiles tls() {
        if (tlsCert == null && tlsKey == null) {
            if (tlsTrust != null) {
                throw new IllegalArgumentException("--tls-trust without --tls-cert and --tls-key (expected: all, or"
                        + " --tls-cert and --tls-key)");
            }
            return null;
        }
        if (tlsCert == null || tlsKey == null) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together (expected: both)");
        }
        return new TlsFiles(tlsCert, tlsKey, tlsTrust);
    }

    /** The delay the flags ask for from the start, or null. */
    InjectedDelay initialDelay() {
        if (injectDelay == null) {
            requireAbsent("--inject-delay", "--inject-delay-probability", injectDelayProbability);
            requireAbsent("--inject-delay", "--inject-delay-distribution", injectDelayDistribution);
            requireAbsent("--inject-delay", "--inject-delay-for", injectDelayFor);
            return null;
        }
        requireFaultInjection("--inject-delay");
        if (injectDelay.isZero()) {
            throw new IllegalArgumentException("--inject-delay: " + Durations.format(injectDelay) + " (expected: > 0)");
        }
        double probability = injectDelayProbability == null ? 1.0 : injectDelayProbability;
        if (!(probability > 0 && probability <= 1)) {
            throw new IllegalArgumentException("--inject-delay-probability: " + probability + " (expected: > 0 and <= 1)");
        }
        requireAtMost("--inject-delay", injectDelay, InjectedDelay.MAX_DELAY);
        InjectedDelay.Distribution distribution = injectDelayDistribution == null
                ? InjectedDelay.Distribution.FIXED : injectDelayDistribution;
        return new InjectedDelay(injectDelay.toNanos(), probability, lasting("--inject-delay-for", injectDelayFor), 0,
                distribution);
    }

    /** The stall the flags ask for from the start, or null. */
    InjectedStall initialStall() {
        if (injectStall == null) {
            requireAbsent("--inject-stall", "--inject-stall-every", injectStallEvery);
            requireAbsent("--inject-stall", "--inject-stall-for", injectStallFor);
            return null;
        }
        requireFaultInjection("--inject-stall");
        if (injectStallEvery == null) {
            throw new IllegalArgumentException("--inject-stall needs --inject-stall-every (e.g. --inject-stall 150ms "
                    + "--inject-stall-every 1s)");
        }
        if (injectStall.isZero()) {
            throw new IllegalArgumentException("--inject-stall: " + Durations.format(injectStall) + " (expected: > 0)");
        }
        requireAtMost("--inject-stall", injectStall, InjectedStall.MAX_STALL);
        requireAtMost("--inject-stall-every", injectStallEvery, InjectedStall.MAX_PERIOD);
        if (injectStallEvery.compareTo(injectStall) <= 0) {
            throw new IllegalArgumentException("--inject-stall-every: " + Durations.format(injectStallEvery)
                    + " (expected: more than --inject-stall " + Durations.format(injectStall) + ")");
        }
        return new InjectedStall(injectStall.toNanos(), injectStallEvery.toNanos(), lasting("--inject-stall-for",
                injectStallFor));
    }

    /**
     * The query cache {@code --query-cache} asks for, bounded by this JVM's heap.
     *
     * @throws IllegalArgumentException when it is neither on nor off
     */
    QueryCacheSettings queryCache() {
        // true and false too: a configuration file's unquoted on and off arrive so (YAML 1.1 booleans).
        return switch (queryCache.toLowerCase(Locale.ROOT)) {
            case "on", "true" -> QueryCacheSettings.on(Runtime.getRuntime().maxMemory());
            case "off", "false" -> QueryCacheSettings.off();
            default -> throw new IllegalArgumentException("--query-cache: " + queryCache + " (expected: on or off)");
        };
    }

    /** The query-of-death token the flags ask for, or null. */
    String queryOfDeath() {
        if (queryOfDeath == null) {
            return null;
        }
        requireFaultInjection("--query-of-death");
        if (queryOfDeath.isEmpty()) {
            throw new IllegalArgumentException("--query-of-death: '' (expected: a non-empty token; an empty one would be "
                    + "in every query)");
        }
        return queryOfDeath;
    }

    private void requireFaultInjection(String flag) {
        if (!faultInjection) {
            throw new IllegalArgumentException(flag + " needs --fault-injection (fault injection is off unless enabled)");
        }
    }

    private static void requireAbsent(String needed, String flag, Object value) {
        if (value != null) {
            throw new IllegalArgumentException(flag + " needs " + needed);
        }
    }

    private static void requireAtMost(String flag, Duration value, Duration max) {
        if (value.compareTo(max) > 0) {
            throw new IllegalArgumentException(flag + ": " + Durations.format(value) + " (expected: at most "
                    + Durations.format(max) + ")");
        }
    }

    /** The fault's duration in nanoseconds: the flag's, or until the leaf exits. */
    private static long lasting(String flag, Duration value) {
        if (value == null) {
            return InjectedDelay.UNTIL_EXIT;
        }
        if (value.isZero() || value.compareTo(InjectedDelay.MAX_DURATION) > 0) {
            throw new IllegalArgumentException(flag + ": " + Durations.format(value) + " (expected: > 0 and at most "
                    + Durations.format(InjectedDelay.MAX_DURATION) + "; leave it out for as long as the leaf runs)");
        }
        return value.toNanos();
    }

    /** Reads {@code fixed} or {@code exponential}, in any case. */
    static final class DistributionConverter implements ITypeConverter<InjectedDelay.Distribution> {
        @Override
        public InjectedDelay.Distribution convert(String value) {
            for (InjectedDelay.Distribution distribution : InjectedDelay.Distribution.values()) {
                if (distribution.label().equals(value.toLowerCase(Locale.ROOT))) {
                    return distribution;
                }
            }
            throw new IllegalArgumentException("'" + value + "' is not a delay distribution (expected: fixed or exponential)");
        }
    }

    /** Reads {@code 50ms}, {@code 2s}, {@code 1m}, {@code 1h}; also for the other commands' duration flags. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Durations.parse(value);
        }
    }

    private static void writeAtomically(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
