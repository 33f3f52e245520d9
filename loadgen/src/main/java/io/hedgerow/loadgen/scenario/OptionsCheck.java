package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Sends one search with a phase's request options before any load starts, so that options the
 * root does not understand (a {@code hedge} parameter for a root without hedging, say) are said up
 * front in one line, rather than found afterwards as a phase of errors.
 */
public final class OptionsCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI root;

    public OptionsCheck(URI root) {
        this.root = root;
    }

    /**
     * Why the root refuses {@code pathAndQuery} (a {@code /search?...} path), e.g.
     * {@code HTTP 400: unknown parameter 'hedge' (...)}; empty when it answers anything but a 4xx
     * (a root that is down or busy is the run's business, not the options').
     */
    public Optional<String> refusal(String pathAndQuery) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(root.resolve(pathAndQuery))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() < 400 || response.statusCode() >= 500) {
                return Optional.empty();
            }
            return Optional.of("HTTP " + response.statusCode() + ": " + detail(response.body()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Asks the root once with each distinct set of request options of the scenario's phases, and
     * warns about any it refuses: their phases would otherwise show only as errors at the end.
     */
    public static void warnRefused(PrintStream out, URI root, Scenario file, ScenarioOverrides overrides) {
        OptionsCheck check = new OptionsCheck(root);
        Map<String, List<String>> phasesByOptions = new LinkedHashMap<>();
        for (ScenarioPhase phase : file.phases()) {
            phasesByOptions.computeIfAbsent(overrides.requestOf(file, phase).toQueryString(), o -> new ArrayList<>())
                    .add(phase.name());
        }
        phasesByOptions.forEach((options, names) -> check.refusal("/search?q=hedgerow" + options).ifPresent(refusal ->
                out.printf("warning: the root refuses the request options of phase%s %s (%s): %s; their requests will"
                                + " count as errors%n", names.size() == 1 ? "" : "s", String.join(", ", names),
                        options.isEmpty() ? "none" : options.substring(1), refusal)));
    }

    private static String detail(String body) {
        try {
            String detail = JSON.readTree(body).path("detail").asText();
            return detail.isEmpty() ? body.strip() : detail;
        } catch (IOException e) {
            return body.strip();
        }
    }
}
