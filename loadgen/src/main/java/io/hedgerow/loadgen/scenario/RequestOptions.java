package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.hedgerow.loadgen.queries.RoutingMix;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Settings sent with every search of a phase, as URL parameters of {@code GET /search}. Options the
 * root does not know yet are refused by it with a 400, which the run reports as errors.
 *
 * @param k            hits per query
 * @param timeoutMs    the query's deadline
 * @param snippets     ask for snippets
 * @param storedFields ask for stored fields
 * @param hedge        hedging mode: off, hedged or tied
 * @param hedgeAfterMs a fixed hedge delay: send a partition's backup after this many milliseconds
 *                     (implies hedged unless {@code hedge} says otherwise)
 * @param minCoverage  good-enough coverage (0..1)
 * @param priority     service class: interactive or batch
 * @param cache        whether the root's result cache may answer (false measures the cluster)
 * @param totalHitsThreshold count hits exactly up to this many per partition (a high value makes a query
 *                     on frequent terms expensive: Lucene cannot skip non-competitive documents)
 * @param routing      the routing values searches name ({@link io.hedgerow.loadgen.queries.RoutingMix}:
 *                     {@code de}, or {@code de=8,fr=1}), each search drawing one; null names none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestOptions(
        @JsonProperty("k") Integer k,
        @JsonProperty("timeout_ms") Long timeoutMs,
        @JsonProperty("snippets") Boolean snippets,
        @JsonProperty("stored_fields") Boolean storedFields,
        @JsonProperty("hedge") String hedge,
        @JsonProperty("hedge_after_ms") Long hedgeAfterMs,
        @JsonProperty("min_coverage") Double minCoverage,
        @JsonProperty("priority") String priority,
        @JsonProperty("cache") Boolean cache,
        @JsonProperty("total_hits_threshold") Integer totalHitsThreshold,
        @JsonProperty("routing") String routing) {

    /** The hedging modes a root understands. */
    public static final List<String> HEDGE_MODES = List.of("off", "hedged", "tied");
    /** The service classes a root understands. */
    public static final List<String> PRIORITIES = List.of("interactive", "batch");
    public static final RequestOptions NONE = new RequestOptions(null, null, null, null, null, null, null, null, null);

    /** Without a routing value. */
    public RequestOptions(Integer k, Long timeoutMs, Boolean snippets, Boolean storedFields, String hedge,
            Long hedgeAfterMs, Double minCoverage, String priority, Boolean cache, Integer totalHitsThreshold) {
        this(k, timeoutMs, snippets, storedFields, hedge, hedgeAfterMs, minCoverage, priority, cache, totalHitsThreshold,
                null);
    }

    /** Without a total-hits threshold (the server's default). */
    public RequestOptions(Integer k, Long timeoutMs, Boolean snippets, Boolean storedFields, String hedge,
            Long hedgeAfterMs, Double minCoverage, String priority, Boolean cache) {
        this(k, timeoutMs, snippets, storedFields, hedge, hedgeAfterMs, minCoverage, priority, cache, null, null);
    }

    public RequestOptions {
        if (k != null && (k < 1 || k > 1000)) {
            throw new IllegalArgumentException("k: " + k + " (expected: 1..1000)");
        }
        if (timeoutMs != null && timeoutMs < 1) {
            throw new IllegalArgumentException("timeout_ms: " + timeoutMs + " (expected: >= 1)");
        }
        if (hedge != null && !HEDGE_MODES.contains(hedge)) {
            throw new IllegalArgumentException("hedge: '" + hedge + "' (expected: off, hedged or tied)");
        }
        if (hedgeAfterMs != null && hedgeAfterMs < 0) {
            throw new IllegalArgumentException("hedge_after_ms: " + hedgeAfterMs + " (expected: >= 0)");
        }
        if (priority != null && !PRIORITIES.contains(priority)) {
            throw new IllegalArgumentException("priority: '" + priority + "' (expected: interactive or batch)");
        }
        if (minCoverage != null && !(minCoverage >= 0 && minCoverage <= 1)) {
            throw new IllegalArgumentException("min_coverage: " + minCoverage + " (expected: 0..1)");
        }
        if (totalHitsThreshold != null && totalHitsThreshold < 1) {
            throw new IllegalArgumentException("total_hits_threshold: " + totalHitsThreshold + " (expected: >= 1)");
        }
        if (routing != null) {
            RoutingMix.parse(routing);
        }
    }

    /** These options, with {@code overrides}' set values taking precedence. */
    public RequestOptions with(RequestOptions overrides) {
        if (overrides == null) {
            return this;
        }
        return new RequestOptions(
                overrides.k != null ? overrides.k : k,
                overrides.timeoutMs != null ? overrides.timeoutMs : timeoutMs,
                overrides.snippets != null ? overrides.snippets : snippets,
                overrides.storedFields != null ? overrides.storedFields : storedFields,
                overrides.hedge != null ? overrides.hedge : hedge,
                overrides.hedgeAfterMs != null ? overrides.hedgeAfterMs : hedgeAfterMs,
                overrides.minCoverage != null ? overrides.minCoverage : minCoverage,
                overrides.priority != null ? overrides.priority : priority,
                overrides.cache != null ? overrides.cache : cache,
                overrides.totalHitsThreshold != null ? overrides.totalHitsThreshold : totalHitsThreshold,
                overrides.routing != null ? overrides.routing : routing);
    }

    /**
     * The URL parameters, starting with {@code &}, to append after {@code q=...}; all but the
     * routing value, which each search draws from {@link #routing()}.
     */
    public String toQueryString() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("k", k);
        parameters.put("timeout_ms", timeoutMs);
        parameters.put("snippets", snippets);
        parameters.put("stored_fields", storedFields);
        parameters.put("hedge", hedge);
        parameters.put("hedge_after_ms", hedgeAfterMs);
        parameters.put("min_coverage", minCoverage);
        parameters.put("priority", priority);
        parameters.put("cache", cache);
        parameters.put("total_hits_threshold", totalHitsThreshold);
        StringBuilder query = new StringBuilder();
        parameters.forEach((name, value) -> {
            if (value != null) {
                query.append('&').append(name).append('=')
                        .append(URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8));
            }
        });
        return query.toString();
    }
}
