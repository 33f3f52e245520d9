package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a phase's faults did: every action the {@link FaultRunner} took or tried, and the faults
 * that never took effect at all (scheduled past the phase's end, or every attempt failed). A phase
 * whose faults are not {@link #clean()} did not measure what its name says.
 *
 * @param events       in the order they happened
 * @param neverApplied each fault (per leaf) that never took effect, with why, e.g.
 *                     {@code kill leaf 2 at 10s (due after the phase's end at 5s)}
 */
public record PhaseFaults(
        @JsonProperty("events") List<FaultEvent> events,
        @JsonProperty("never_applied") List<String> neverApplied) {

    /** A phase without faults. */
    public static final PhaseFaults NONE = new PhaseFaults(List.of(), List.of());

    public PhaseFaults {
        events = events == null ? List.of() : List.copyOf(events);
        neverApplied = neverApplied == null ? List.of() : List.copyOf(neverApplied);
    }

    public int applied() {
        return count(Outcome.APPLIED);
    }

    public int failed() {
        return count(Outcome.FAILED);
    }

    public int undone() {
        return count(Outcome.UNDONE);
    }

    private int count(Outcome outcome) {
        return (int) events.stream().filter(event -> event.outcome() == outcome).count();
    }

    /** Nothing failed, and every fault of the phase took effect at least once. */
    public boolean clean() {
        return failed() == 0 && neverApplied.isEmpty();
    }

    /**
     * One line for tables: failures first with the first reason of each, then faults that never
     * took effect, then what was applied, e.g. {@code FAILED: kill leaf 2 (no pid file
     * data/run/leaf-2.pid); pause leaf 1: 60 applied} or {@code FAILED: kill leaf 2 (restart: HTTP
     * 409 ...)} when the failed action is not the fault itself. Empty when the phase had no faults.
     */
    public String summary() {
        Map<String, FaultEvent> firstFailure = new LinkedHashMap<>();
        Map<String, Integer> failures = new LinkedHashMap<>();
        Map<String, Integer> applications = new LinkedHashMap<>();
        for (FaultEvent event : events) {
            switch (event.outcome()) {
                case FAILED -> {
                    firstFailure.putIfAbsent(event.target(), event);
                    failures.merge(event.target(), 1, Integer::sum);
                }
                case APPLIED -> applications.merge(event.target(), 1, Integer::sum);
                case UNDONE -> {
                }
            }
        }
        List<String> parts = new ArrayList<>();
        firstFailure.forEach((target, event) -> {
            int times = failures.get(target);
            String action = event.action().equals(event.fault()) ? "" : event.action() + ": ";
            parts.add("FAILED" + (times > 1 ? " " + times + "x" : "") + ": " + target + " (" + action + event.detail() + ")");
        });
        // A fault whose every attempt failed is named once, by its failure.
        neverApplied.stream().filter(fault -> firstFailure.keySet().stream().noneMatch(target -> fault.startsWith(target + " (")))
                .forEach(fault -> parts.add("NOT APPLIED: " + fault));
        applications.forEach((target, times) -> parts.add(target + ": " + times + " applied"));
        return String.join("; ", parts);
    }
}
