package io.hedgerow.loadgen.report;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole load run: its phases and the settings it ran with.
 *
 * @param label     short name for tables and chart legends (e.g. the scenario name)
 * @param startedAt when it started
 * @param target    the URL it loaded
 * @param settings  every setting that shaped the run, for the record (rate, mix, seed, ...)
 * @param phases    results in run order
 * @param capacity  what a capacity search found; null for other runs
 */
public record RunResult(String label, Instant startedAt, String target, Map<String, String> settings,
        List<PhaseResult> phases, Capacity capacity) {

    public RunResult {
        settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
        phases = List.copyOf(phases);
    }

    /** A run that was not a capacity search. */
    public RunResult(String label, Instant startedAt, String target, Map<String, String> settings,
            List<PhaseResult> phases) {
        this(label, startedAt, target, settings, phases, null);
    }
}
