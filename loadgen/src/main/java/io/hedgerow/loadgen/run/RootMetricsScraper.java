package io.hedgerow.loadgen.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.loadgen.report.RootView;
import io.hedgerow.root.metrics.RequestLatency;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Reads what the root says about itself: its counters from the Prometheus {@code /metrics}
 * (sub-requests by kind and the least its searches needed, tied pairs, search requests), and its
 * own time per search from {@code /metrics/latency}, and each leaf's latency histograms from
 * {@code /metrics/leaves}.
 */
public final class RootMetricsScraper {
    private static final Pattern SENT = labelled("hedgerow_subrequests_total", "kind");
    private static final Pattern NEEDED = labelled("hedgerow_subrequests_needed_total", "phase");
    private static final Pattern TIED_PAIRS = counter("hedgerow_tied_pairs_total");
    private static final Pattern TIED_BOTH_RAN = counter("hedgerow_tied_both_ran_total");
    private static final Pattern SEARCH_REQUESTS = counter("hedgerow_search_requests_total");
    private static final Pattern CPU_NANOS = counter("process_cpu_time_ns_total");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI metrics;
    private final URI latency;
    private final URI leaves;

    /**
     * What one reading of the root found.
     *
     * @param leaves each leaf's cumulative histograms by name ({@code leaf-1-search-service}); empty
     *               from a root that does not serve {@code /metrics/leaves}
     */
    public record Reading(RootCounters counters, RootView.Latency latency, Map<String, Histogram> leaves) {
    }

    public RootMetricsScraper(URI target) {
        this.metrics = target.resolve("/metrics");
        this.latency = target.resolve("/metrics/latency");
        this.leaves = target.resolve("/metrics/leaves");
    }

    private static Pattern labelled(String name, String label) {
        return Pattern.compile("^" + name + "\\{(?:[^}]*,)?" + label + "=\"([a-z_]+)\"[^}]*}\\s+([0-9.eE+]+)$", Pattern.MULTILINE);
    }

    /** A counter's samples, with or without labels. */
    private static Pattern counter(String name) {
        return Pattern.compile("^" + name + "(?:\\{[^}]*})?\\s+([0-9.eE+]+)$", Pattern.MULTILINE);
    }

    /**
     * The root now. Its latency is null when the root does not serve {@code /metrics/latency} (an
     * older root).
     *
     * @throws IOException naming the URL and what went wrong, when the root cannot be read
     */
    public Reading read() throws IOException {
        HttpResponse<String> response = get(metrics);
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + ": HTTP " + response.statusCode());
        }
        RootCounters counters = parse(response.body());
        HttpResponse<String> latencyResponse = get(latency);
        if (latencyResponse.statusCode() == 404) {
            return new Reading(counters, null, Map.of());
        }
        if (latencyResponse.statusCode() != 200) {
            throw new IOException("GET " + latency + ": HTTP " + latencyResponse.statusCode());
        }
        HttpResponse<String> leavesResponse = get(leaves);
        if (leavesResponse.statusCode() != 200 && leavesResponse.statusCode() != 404) {
            throw new IOException("GET " + leaves + ": HTTP " + leavesResponse.statusCode());
        }
        return new Reading(counters, parseLatency(latencyResponse.body()),
                leavesResponse.statusCode() == 404 ? Map.of() : parseLeaves(leavesResponse.body()));
    }

    /** Each leaf's histograms, named {@code leaf-<index>-<phase>-<part>}, in the root's order. */
    static Map<String, Histogram> parseLeaves(String json) throws IOException {
        JsonNode body = JSON.readTree(json);
        if (!"microseconds".equals(body.path("unit").asText())) {
            throw new IOException("/metrics/leaves: unit '" + body.path("unit").asText() + "' (expected: microseconds)");
        }
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        for (JsonNode leaf : body.path("leaves")) {
            for (Map.Entry<String, JsonNode> phase : leaf.properties()) {
                if (!phase.getValue().isObject()) {
                    continue; // leaf, address
                }
                for (Map.Entry<String, JsonNode> part : phase.getValue().properties()) {
                    String name = "leaf-" + leaf.path("leaf").asInt() + "-" + phase.getKey() + "-" + part.getKey();
                    histograms.put(name, decode(part.getValue().path("histogram").asText(""), "/metrics/leaves", name));
                }
            }
        }
        return histograms;
    }

    private HttpResponse<String> get(URI uri) throws IOException {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException("GET " + uri + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("GET " + uri + ": interrupted", e);
        }
    }

    static RootCounters parse(String prometheusText) {
        Double searches = SEARCH_REQUESTS.matcher(prometheusText).find() ? sum(SEARCH_REQUESTS, prometheusText) : null;
        Double cpu = CPU_NANOS.matcher(prometheusText).find() ? sum(CPU_NANOS, prometheusText) : null;
        return new RootCounters(byLabel(SENT, prometheusText), byLabel(NEEDED, prometheusText),
                sum(TIED_PAIRS, prometheusText), sum(TIED_BOTH_RAN, prometheusText), searches, cpu);
    }

    private static Map<String, Double> byLabel(Pattern pattern, String prometheusText) {
        Map<String, Double> values = new HashMap<>();
        Matcher matcher = pattern.matcher(prometheusText);
        while (matcher.find()) {
            values.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
        }
        return values;
    }

    private static double sum(Pattern counter, String prometheusText) {
        double total = 0;
        Matcher matcher = counter.matcher(prometheusText);
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
        }
        return total;
    }

    static RootView.Latency parseLatency(String json) throws IOException {
        JsonNode body = JSON.readTree(json);
        if (!"microseconds".equals(body.path("unit").asText())) {
            throw new IOException("/metrics/latency: unit '" + body.path("unit").asText() + "' (expected: microseconds)");
        }
        Histogram refused = body.has("refused") ? histogram(body, "refused") : new Histogram(3);
        return new RootView.Latency(histogram(body, "complete"), histogram(body, "tainted"), histogram(body, "error"),
                refused);
    }

    private static Histogram histogram(JsonNode body, String outcome) throws IOException {
        return decode(body.path(outcome).path("histogram").asText(""), "/metrics/latency", outcome);
    }

    private static Histogram decode(String encoded, String path, String name) throws IOException {
        if (encoded.isEmpty()) {
            throw new IOException(path + ": no histogram for '" + name + "'");
        }
        try {
            return RequestLatency.decode(encoded);
        } catch (DataFormatException | IllegalArgumentException e) {
            throw new IOException(path + ": the '" + name + "' histogram does not decode: " + e.getMessage(), e);
        }
    }
}
