package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.hedgerow.common.time.Durations;
import io.hedgerow.leaf.fault.InjectedDelay;
import java.time.Duration;

/**
 * A fault applied to a leaf of the cluster that {@code ./hedgerow local} started, during one phase.
 * Every fault is bounded in time and undone when the phase ends or the run is interrupted.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Fault.Pause.class, name = "pause"),
        @JsonSubTypes.Type(value = Fault.Kill.class, name = "kill"),
        @JsonSubTypes.Type(value = Fault.Delay.class, name = "delay")})
public sealed interface Fault permits Fault.Pause, Fault.Kill, Fault.Delay {

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

    /**
     * Slows the leaf down from inside (the leaf's fault injection): each of its sub-requests is held
     * on its worker for {@code delay} with {@code probability}, as a slow disk or a GC pause would,
     * from {@code start} after the phase begins (default at once) until {@code end} (default: when
     * the phase ends). Needs a cluster started with {@code ./hedgerow local --fault-injection}.
     * The leaf drops the delay by itself when it is due to end, so even a generator that dies
     * leaves no slow leaf behind.
     *
     * @param seed seed of the leaf's coin flips, for a repeatable run; absent: the leaf chooses (and
     *             the run log shows it)
     */
    record Delay(
            @JsonProperty(value = "leaf", required = true) int leaf,
            @JsonProperty(value = "delay", required = true) String delay,
            @JsonProperty(value = "probability", required = true) double probability,
            @JsonProperty("start") String start,
            @JsonProperty("end") String end,
            @JsonProperty("seed") Long seed) implements Fault {
        public Delay {
            requireLeaf(leaf);
            Duration held = Durations.parse(delay);
            if (held.isZero() || held.compareTo(InjectedDelay.MAX_DELAY) > 0) {
                throw new IllegalArgumentException("delay: " + delay + " (expected: > 0 and at most "
                        + Durations.format(InjectedDelay.MAX_DELAY) + ")");
            }
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability: " + probability + " (expected: 0..1)");
            }
            Duration from = start == null ? Duration.ZERO : Durations.parse(start);
            if (end != null && Durations.parse(end).compareTo(from) <= 0) {
                throw new IllegalArgumentException("end: " + end + " (expected: after start: " + (start == null ? "0s" : start) + ")");
            }
        }

        public Duration delayDuration() {
            return Durations.parse(delay);
        }

        public Duration startOffset() {
            return start == null ? Duration.ZERO : Durations.parse(start);
        }

        /** When the delay ends, bounded by the phase's end. */
        public Duration endOffset(Duration phase) {
            return end == null ? phase : min(Durations.parse(end), phase);
        }

        private static Duration min(Duration a, Duration b) {
            return a.compareTo(b) <= 0 ? a : b;
        }
    }

    private static void requireLeaf(int leaf) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf: " + leaf + " (expected: >= 0)");
        }
    }
}
