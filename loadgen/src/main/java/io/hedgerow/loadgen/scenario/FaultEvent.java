package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * One action the {@link FaultRunner} took on a leaf, or tried to: the record that lets a report
 * say what a phase's faults really did, instead of what the scenario file asked for. Written into
 * a run's {@code summary.json} and read back from it.
 *
 * <p>{@link Outcome#APPLIED} means the fault took effect on the leaf (it was paused, killed, stopped
 * or injected); {@link Outcome#UNDONE} that the leaf was brought back (resumed, restarted, its
 * injection cleared), whether on schedule, when the phase ended or when the run was interrupted;
 * {@link Outcome#FAILED} that either did not happen, with the reason in {@code detail}.
 *
 * @param at       when, an ISO-8601 instant
 * @param offsetMillis since the phase started
 * @param fault    the fault's type: {@code pause}, {@code kill}, {@code delay}, {@code stall} or {@code restart}
 * @param leaf     the leaf acted on, or {@code all} when the cluster's leaves could not be listed
 * @param action   {@code pause}, {@code resume}, {@code kill}, {@code stop}, {@code restart}, {@code inject},
 *                 {@code clear} or {@code list-leaves}
 * @param outcome  what came of it
 * @param detail   pid, signal, HTTP status and answer, the seed a leaf uses, or why it failed
 */
public record FaultEvent(
        @JsonProperty(value = "at", required = true) String at,
        @JsonProperty("offset_ms") long offsetMillis,
        @JsonProperty(value = "fault", required = true) String fault,
        @JsonProperty(value = "leaf", required = true) Leaves leaf,
        @JsonProperty(value = "action", required = true) String action,
        @JsonProperty(value = "outcome", required = true) Outcome outcome,
        @JsonProperty("detail") String detail) {

    /** What came of an action. */
    public enum Outcome {
        APPLIED, FAILED, UNDONE
    }

    public FaultEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(fault, "fault");
        Objects.requireNonNull(leaf, "leaf");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(outcome, "outcome");
        detail = detail == null ? "" : detail;
    }

    /** The fault and its leaf as a table names them: {@code pause leaf 1}, {@code delay all leaves}. */
    public String target() {
        return target(fault, leaf);
    }

    static String target(String fault, Leaves leaf) {
        return fault + (leaf.all() ? " all leaves" : " leaf " + leaf.number());
    }
}
