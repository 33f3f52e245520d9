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
 * Reads the root's counters from its Prometheus {@code /metrics}, so a report can say how many
 * extra leaf requests (retries, backups, tied twins) a phase cost, and how often both copies of a
 * tied request ran.
 */
public final class RootMetricsScraper {
    private static final Pattern SENT = Pattern.compile(
            "^hedgerow_subrequests_total\\{kind=\"([a-z_]+)\"[^}]*}\\s+([0-9.eE+]+)$", Pattern.MULTILINE);
    private static final Pattern TIED_PAIRS = counter("hedgerow_tied_pairs_total");
    private static final Pattern TIED_BOTH_RAN = counter("hedgerow_tied_both_ran_total");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI metrics;

    public RootMetricsScraper(URI target) {
        this.metrics = target.resolve("/metrics");
    }

    /** A counter's samples, with or without labels. */
    private static Pattern counter(String name) {
        return Pattern.compile("^" + name + "(?:\\{[^}]*})?\\s+([0-9.eE+]+)$", Pattern.MULTILINE);
    }

    /** The counters now; {@link RootCounters#NONE} if unreachable. */
    public RootCounters scrape() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? parse(response.body()) : RootCounters.NONE;
        } catch (IOException e) {
            return RootCounters.NONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RootCounters.NONE;
        }
    }

    static RootCounters parse(String prometheusText) {
        Map<String, Double> sent = new HashMap<>();
        Matcher matcher = SENT.matcher(prometheusText);
        while (matcher.find()) {
            sent.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
        }
        return new RootCounters(sent, sum(TIED_PAIRS, prometheusText), sum(TIED_BOTH_RAN, prometheusText));
    }

    private static double sum(Pattern counter, String prometheusText) {
        double total = 0;
        Matcher matcher = counter.matcher(prometheusText);
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
        }
        return total;
    }
}
