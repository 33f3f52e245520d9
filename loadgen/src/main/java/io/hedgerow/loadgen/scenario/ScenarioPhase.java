package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.hedgerow.common.time.Durations;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.loadgen.run.PhaseSpec;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One phase of a scenario file.
 *
 * @param name        shown in progress and reports
 * @param duration    e.g. {@code 30s}
 * @param rate        requests per second (open loop)
 * @param arrival     {@code poisson} (default), {@code constant} or {@code closed}
 * @param concurrency requests in flight, closed loop only
 * @param mix         query mix, e.g. {@code high_term=3,phrase=1}; the scenario's or the default when absent
 * @param request     request options on top of the scenario's
 * @param faults      faults applied during this phase
 * @param record      false for a warm-up that is left out of the results (default true)
 */
public record ScenarioPhase(
        @JsonProperty(value = "name", required = true) String name,
        @JsonProperty(value = "duration", required = true) String duration,
        @JsonProperty("rate") Double rate,
        @JsonProperty("arrival") String arrival,
        @JsonProperty("concurrency") Integer concurrency,
        @JsonProperty("mix") String mix,
        @JsonProperty("request") RequestOptions request,
        @JsonProperty("faults") List<Fault> faults,
        @JsonProperty("record") Boolean record) {

    public ScenarioPhase {
        Objects.requireNonNull(name, "name");
        faults = faults == null ? List.of() : List.copyOf(faults);
        PhaseSpec spec = toSpec(name, duration, rate, arrival, concurrency, record); // validates
        for (int i = 0; i < faults.size(); i++) {
            if (faults.get(i) instanceof Fault.Injected injected) {
                requireWithin(injected, i, spec.duration());
            }
        }
    }

    /**
     * An injected fault must start within the phase, and a leaf keeps one for at most an hour (the
     * bound of injected delays, which stalls share).
     */
    private static void requireWithin(Fault.Injected fault, int index, Duration phase) {
        if (fault.startOffset().compareTo(phase) >= 0) {
            throw new IllegalArgumentException("faults[" + index + "].start: " + fault.start()
                    + " (expected: before the phase ends at " + Durations.format(phase) + ")");
        }
        Duration window = fault.endOffset(phase).minus(fault.startOffset());
        if (window.compareTo(InjectedDelay.MAX_DURATION) > 0) {
            throw new IllegalArgumentException("faults[" + index + "]: a " + fault.kind() + " of " + Durations.format(window)
                    + " (expected: at most " + Durations.format(InjectedDelay.MAX_DURATION)
                    + ", the longest a leaf keeps one; split the phase)");
        }
    }

    public PhaseSpec toSpec() {
        return toSpec(name, duration, rate, arrival, concurrency, record);
    }

    private static PhaseSpec toSpec(String name, String duration, Double rate, String arrival, Integer concurrency,
            Boolean record) {
        return new PhaseSpec(name, Durations.parse(duration), rate == null ? 0 : rate,
                arrival == null ? "poisson" : arrival, concurrency == null ? 0 : concurrency, record == null || record);
    }
}
