package io.hedgerow.loadgen.scenario;

import io.hedgerow.common.time.Durations;
import io.hedgerow.loadgen.run.PhaseSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the command line changes in a scenario file, so one file serves at any rate and a short
 * smoke run needs no copy of it. Each is null (or {@link RequestOptions#NONE}) when not given.
 *
 * @param rate           requests per second of every open-loop phase (closed-loop phases keep theirs)
 * @param phaseDuration  length of every recorded phase
 * @param warmupDuration length of every unrecorded phase (warm-ups)
 * @param mix            query mix of every phase, instead of the scenario's and the phases' own
 * @param request        request options on top of the scenario's and each phase's
 */
public record ScenarioOverrides(Double rate, Duration phaseDuration, Duration warmupDuration, String mix,
        RequestOptions request) {
    public static final ScenarioOverrides NONE = new ScenarioOverrides(null, null, null, null, RequestOptions.NONE);

    public ScenarioOverrides {
        if (rate != null && !(rate > 0)) {
            throw new IllegalArgumentException("rate: " + rate + " (expected: > 0 requests per second)");
        }
        requirePositive("phase duration", phaseDuration);
        requirePositive("warm-up duration", warmupDuration);
        request = request == null ? RequestOptions.NONE : request;
    }

    private static void requirePositive(String name, Duration duration) {
        if (duration != null && (duration.isZero() || duration.isNegative())) {
            throw new IllegalArgumentException(name + ": " + Durations.format(duration) + " (expected: > 0)");
        }
    }

    /** The phase as it runs: its own settings with these overrides applied. */
    public PhaseSpec apply(ScenarioPhase phase) {
        PhaseSpec own = phase.toSpec();
        Duration length = own.record() ? phaseDuration : warmupDuration;
        return new PhaseSpec(own.name(), length != null ? length : own.duration(),
                rate != null && !own.closedLoop() ? rate : own.rate(), own.arrival(), own.concurrency(), own.record());
    }

    /** The phase's query mix: the override, else the phase's, else the scenario's (null: the default mix). */
    public String mixOf(Scenario scenario, ScenarioPhase phase) {
        return mix != null ? mix : phase.mix() != null ? phase.mix() : scenario.mix();
    }

    /** The phase's request options: the scenario's, then the phase's, then the command line's. */
    public RequestOptions requestOf(Scenario scenario, ScenarioPhase phase) {
        return scenario.request().with(phase.request()).with(request);
    }

    /** E.g. {@code rate 1000 req/s, recorded phases 60s}; empty when nothing is overridden. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (rate != null) {
            parts.add(String.format(Locale.ROOT, "rate %.0f req/s", rate));
        }
        if (phaseDuration != null) {
            parts.add("recorded phases " + Durations.format(phaseDuration));
        }
        if (warmupDuration != null) {
            parts.add("warm-up phases " + Durations.format(warmupDuration));
        }
        if (mix != null) {
            parts.add("mix " + mix);
        }
        String options = request.toQueryString();
        if (!options.isEmpty()) {
            parts.add("request " + options.substring(1));
        }
        return String.join(", ", parts);
    }
}
