package io.hedgerow.loadgen;

import io.hedgerow.loadgen.scenario.RequestOptions;
import picocli.CommandLine.Option;

/**
 * The load generator's options for what each search asks of the root (k, deadline, snippets,
 * stored fields, hedging, priority, the cache); unset ones leave the root's defaults.
 */
final class RequestFlags {
    @Option(names = "--k", description = "Hits per query (default: the server's, 10).")
    Integer k;

    @Option(names = "--total-hits-threshold", paramLabel = "N",
            description = "Count hits exactly up to N per partition (default: the server's, 1000); a high N makes"
                    + " queries of frequent terms expensive, as exact totals are.")
    Integer totalHitsThreshold;

    @Option(names = "--timeout-ms", description = "Query deadline (default: the server's).")
    Long timeoutMs;

    @Option(names = "--snippets", negatable = true, description = "Ask for snippets (default: the server's, yes).")
    Boolean snippets;

    @Option(names = "--stored-fields", negatable = true, description = "Ask for stored fields (default: the server's, yes).")
    Boolean storedFields;

    @Option(names = "--hedge", paramLabel = "MODE",
            description = "Hedging mode of every request: off, hedged or tied (default: the cluster's).")
    String hedge;

    @Option(names = "--hedge-after-ms", paramLabel = "MS",
            description = "Send a partition's backup after this fixed delay instead of the adaptive one (implies hedged).")
    Long hedgeAfterMs;

    @Option(names = "--priority", paramLabel = "CLASS",
            description = "Service class of every request: interactive or batch (default: the root's, interactive). Run a"
                    + " batch load next to an interactive one with a second loadgen process.")
    String priority;

    @Option(names = "--use-cache",
            description = "Let the root's result cache answer repeated queries. Off by default: every request says"
                    + " cache=false, so the run measures the cluster, not the cache.")
    boolean useCache;

    @Option(names = "--routing", paramLabel = "MIX",
            description = "Routing values for an index built with --routing: VALUE (every search names it) or"
                    + " VALUE=WEIGHT,... (each search draws one), e.g. de=8,fr=1. Default: none, every partition.")
    String routing;

    /** The options as every request of the run carries them; checks them (a bad value throws). */
    RequestOptions toOptions() {
        return new RequestOptions(k, timeoutMs, snippets, storedFields, hedge, hedgeAfterMs, null, priority,
                useCache ? null : Boolean.FALSE, totalHitsThreshold, routing);
    }
}
