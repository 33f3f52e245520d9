package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Duration;

/**
 * A fault applied to a leaf of the cluster that {@code ./hedgerow local} started, during one phase.
 * Every fault is bounded in time and undone when the phase ends or the run is interrupted.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Fault.Pause.class, name = "pause"),
        @JsonSubTypes.Type(value = Fault.Kill.class, name = "kill")})
public sealed interface Fault permits Fault.Pause, Fault.Kill {

    /** The leaf's number, as in {@code data/run/leaf-N.pid}. */
    int leaf();

    /**
     * Freezes the leaf's process (SIGSTOP) for {@code pause} every {@code every}, like a long GC
     * pause, from {@code start} after the phase begins (default at once) until the phase ends.
     */
    record Pause(
            @JsonProperty(value = "leaf", required = true) int leaf,
            @JsonProperty(value = "pause", required = true) String pause,
            @JsonProperty(value = "every", required = true) String every,
            @JsonProperty("start") String start) implements Fault {
        public Pause {
            requireLeaf(leaf);
            Duration pauseDuration = Durations.parse(pause);
            Duration period = Durations.parse(every);
            if (pauseDuration.compareTo(period) >= 0) {
                throw new IllegalArgumentException("pause: " + pause + " (expected: shorter than every: " + every + ")");
            }
            if (start != null) {
                Durations.parse(start);
            }
        }

        public Duration pauseDuration() {
            return Durations.parse(pause);
        }

        public Duration period() {
            return Durations.parse(every);
        }

        public Duration startOffset() {
            return start == null ? Duration.ZERO : Durations.parse(start);
        }
    }

    /**
     * Kills the leaf's process (SIGKILL, as a crash would) at {@code at} into the phase, and starts
     * it again at {@code restart_at} (before the phase ends, or when it ends).
     */
    record Kill(
            @JsonProperty(value = "leaf", required = true) int leaf,
            @JsonProperty(value = "at", required = true) String at,
            @JsonProperty("restart_at") String restartAt) implements Fault {
        public Kill {
            requireLeaf(leaf);
            Duration killAt = Durations.parse(at);
            if (restartAt != null && Durations.parse(restartAt).compareTo(killAt) <= 0) {
                throw new IllegalArgumentException("restart_at: " + restartAt + " (expected: after at: " + at + ")");
            }
        }

        public Duration killAt() {
            return Durations.parse(at);
        }

        /** When to restart, or null to restart when the phase ends. */
        public Duration restartAtOrNull() {
            return restartAt == null ? null : Durations.parse(restartAt);
        }
    }

    private static void requireLeaf(int leaf) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf: " + leaf + " (expected: >= 0)");
        }
    }
}
