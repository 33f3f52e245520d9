package io.hedgerow.loadgen.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the root's sub-request counters from its Prometheus {@code /metrics}, so a report can say
 * how many extra leaf requests (retries, backups) a phase cost.
 */
public final class RootMetricsScraper {
    private static final Pattern SENT = Pattern.compile(
            "^hedgerow_subrequests_total\\{kind=\"([a-z_]+)\"[^}]*}\\s+([0-9.eE+]+)$", Pattern.MULTILINE);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI metrics;

    public RootMetricsScraper(URI target) {
        this.metrics = target.resolve("/metrics");
    }

    /** Sub-requests sent so far by kind (primary, retry, backup, fetch); empty if unreachable. */
    public Map<String, Double> subRequestsSent() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? parse(response.body()) : Map.of();
        } catch (IOException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
    }

    static Map<String, Double> parse(String prometheusText) {
        Map<String, Double> sent = new HashMap<>();
        Matcher matcher = SENT.matcher(prometheusText);
        while (matcher.find()) {
            sent.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
        }
        return sent;
    }

    /**
     * Extra leaf requests between two scrapes, as a percentage of primary sub-requests; null when
     * the counters are not available (not a Hedgerow root, or no traffic).
     */
    public static Double extraPercent(Map<String, Double> before, Map<String, Double> after) {
        double primary = after.getOrDefault("primary", 0.0) - before.getOrDefault("primary", 0.0);
        if (!(primary > 0)) {
            return null;
        }
        double extra = after.getOrDefault("retry", 0.0) - before.getOrDefault("retry", 0.0)
                + after.getOrDefault("backup", 0.0) - before.getOrDefault("backup", 0.0);
        return 100.0 * extra / primary;
    }
}
