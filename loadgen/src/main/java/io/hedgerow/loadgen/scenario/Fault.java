package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.hedgerow.common.time.Durations;
import io.hedgerow.leaf.fault.InjectedDelay;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A fault applied to a leaf of the cluster that {@code ./hedgerow local} started, during one phase.
 * Every fault is bounded in time and undone when the phase ends or the run is interrupted. A pause
 * or kill names a leaf by its number, as in {@code data/run/leaf-N.pid}; an injected delay or
 * stall and a rolling restart may also name every leaf ({@code "all"}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Fault.Pause.class, name = "pause"),
        @JsonSubTypes.Type(value = Fault.Kill.class, name = "kill"),
        @JsonSubTypes.Type(value = Fault.Delay.class, name = "delay"),
        @JsonSubTypes.Type(value = Fault.Stall.class, name = "stall"),
        @JsonSubTypes.Type(value = Fault.Restart.class, name = "restart")})
public sealed interface Fault permits Fault.Pause, Fault.Kill, Fault.Restart, Fault.Injected {

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
     * A rolling restart, as a deploy does it: one leaf after another in leaf order, the first at
     * {@code start} into the phase (default at once) and each next one {@code every} later, is
     * stopped gracefully (SIGTERM, then SIGKILL if it is still running after {@code grace}, default
     * 30 s) and started again through the root's {@code POST /admin/leaves/{n}/restart}, which
     * answers once the new process listens. A restart that takes longer than {@code every} delays
     * the next one: never two leaves down at once.
     *
     * @param every the time between two leaves' restarts; required with {@code "leaf": "all"}
     */
    record Restart(
            @JsonProperty(value = "leaf", required = true) Leaves leaf,
            @JsonProperty("every") String every,
            @JsonProperty("start") String start,
            @JsonProperty("grace") String grace) implements Fault {
        public static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

        public Restart {
            Objects.requireNonNull(leaf, "leaf");
            if (every == null && leaf.all()) {
                throw new IllegalArgumentException("every: missing (expected: the time between two leaves' restarts,"
                        + " e.g. 20s, when leaf is \"all\")");
            }
            if (every != null && Durations.parse(every).isZero()) {
                throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
            }
            if (start != null) {
                Durations.parse(start);
            }
            if (grace != null) {
                Durations.parse(grace);
            }
        }

        public Duration startOffset() {
            return start == null ? Duration.ZERO : Durations.parse(start);
        }

        /** When the {@code n}-th leaf restarted (from 0) is due, since the phase started. */
        public Duration offsetOf(int n) {
            return n == 0 ? startOffset() : startOffset().plus(Durations.parse(every).multipliedBy(n));
        }

        /** How long a leaf may take to exit after SIGTERM before it gets SIGKILL. */
        public Duration graceDuration() {
            return grace == null ? DEFAULT_GRACE : Durations.parse(grace);
        }
    }

    /**
     * A fault the leaf applies to itself (fault injection), through the root's
     * {@code /admin/leaves/{n}/<kind>}: from {@code start} after the phase begins (default at once)
     * until {@code end} (default: when the phase ends). Needs a cluster started with
     * {@code ./hedgerow local --fault-injection}. The leaf drops the fault by itself when it is due
     * to end, so even a generator that dies leaves no slow leaf behind.
     */
    sealed interface Injected extends Fault permits Delay, Stall {
        /** One leaf, or every leaf of the cluster. */
        Leaves leaf();

        String start();

        String end();

        /**
         * The JSON body that injects this fault into {@code leafNumber} for {@code durationMillis},
         * after which the leaf drops it by itself.
         */
        String adminBody(int leafNumber, long durationMillis);

        /** {@code delay} or {@code stall}: the last part of the admin path, and the word in messages. */
        String kind();

        /** {@code delayed} or {@code stalled}, for messages. */
        default String participle() {
            return kind() + "ed";
        }

        /** What a leaf's refusal of this fault most likely means (stalls came later than delays, so a root may lack them). */
        default String refusalHint() {
            return this instanceof Stall
                    ? " (stall faults need a cluster started with ./hedgerow local --fault-injection, by a Hedgerow whose"
                            + " root offers /admin/leaves/{n}/stall)"
                    : " (delay faults need a cluster started with ./hedgerow local --fault-injection)";
        }

        default Duration startOffset() {
            return start() == null ? Duration.ZERO : Durations.parse(start());
        }

        /** When the fault ends, bounded by the phase's end. */
        default Duration endOffset(Duration phase) {
            if (end() == null) {
                return phase;
            }
            Duration end = Durations.parse(end());
            return end.compareTo(phase) <= 0 ? end : phase;
        }
    }

    /**
     * Slows the leaf down from inside: each of its sub-requests is held on its worker for
     * {@code delay} with {@code probability}, as a slow disk or a GC pause would. With
     * {@code "leaf": "all"} every leaf flips its own coins, so "1% of all sub-requests, independently"
     * is one fault.
     *
     * @param seed         seed of the leaf's coin flips, for a repeatable run; absent: the leaf chooses (and
     *                     the run log shows it). With "all", each leaf gets its own seed derived from this one
     *                     ({@link #seedFor}), or the leaves' coin flips would fall in step
     * @param distribution {@code fixed} (every delayed sub-request is held for {@code delay}) or
     *                     {@code exponential} (held for a random time with mean {@code delay}); absent: the
     *                     leaf's default, fixed
     */
    record Delay(
            @JsonProperty(value = "leaf", required = true) Leaves leaf,
            @JsonProperty(value = "delay", required = true) String delay,
            @JsonProperty(value = "probability", required = true) double probability,
            @JsonProperty("start") String start,
            @JsonProperty("end") String end,
            @JsonProperty("seed") Long seed,
            @JsonProperty("distribution") String distribution) implements Injected {
        public static final List<String> DISTRIBUTIONS = List.of("fixed", "exponential");

        public Delay {
            Objects.requireNonNull(leaf, "leaf");
            Duration held = Durations.parse(delay);
            if (held.isZero() || held.compareTo(InjectedDelay.MAX_DELAY) > 0) {
                throw new IllegalArgumentException("delay: " + delay + " (expected: > 0 and at most "
                        + Durations.format(InjectedDelay.MAX_DELAY) + ")");
            }
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("probability: " + probability + " (expected: 0..1)");
            }
            requireWindow(start, end);
            if (distribution != null && !DISTRIBUTIONS.contains(distribution)) {
                throw new IllegalArgumentException("distribution: '" + distribution + "' (expected: fixed or exponential)");
            }
        }

        /** A fixed delay of one leaf, as scenario files before distributions and "all" wrote them. */
        public Delay(int leaf, String delay, double probability, String start, String end, Long seed) {
            this(Leaves.one(leaf), delay, probability, start, end, seed, null);
        }

        @Override
        public String kind() {
            return "delay";
        }

        @Override
        public String adminBody(int leafNumber, long durationMillis) {
            return "{\"delay_ms\": " + delayDuration().toNanos() / 1e6
                    + ", \"probability\": " + probability
                    + ", \"duration_ms\": " + durationMillis
                    + (seedFor(leafNumber) == null ? "" : ", \"seed\": " + seedFor(leafNumber))
                    // Only when asked for: a root without distributions still takes a plain delay.
                    + (distribution == null ? "" : ", \"distribution\": \"" + distribution + "\"") + "}";
        }

        public Duration delayDuration() {
            return Durations.parse(delay);
        }

        /**
         * The seed for {@code leafNumber}: the seed itself for one leaf (and for leaf 0 of "all"),
         * else mixed with the leaf's number (never 0, which would let the leaf choose); null when
         * the leaf chooses.
         */
        public Long seedFor(int leafNumber) {
            if (seed == null || !leaf.all()) {
                return seed;
            }
            long mixed = seed ^ (leafNumber * 0x9E3779B97F4A7C15L);
            return mixed == 0 ? 1 : mixed;
        }
    }

    /**
     * Stalls the whole leaf, like a stop-the-world GC pause seen from inside: for {@code stall}
     * every {@code every} its workers take no sub-request and the ones running wait. Unlike
     * {@link Pause} (SIGSTOP from outside) the leaf's network stays up, so what stalls is the work,
     * and a cancel for a stalled sub-request still arrives.
     */
    record Stall(
            @JsonProperty(value = "leaf", required = true) Leaves leaf,
            @JsonProperty(value = "stall", required = true) String stall,
            @JsonProperty(value = "every", required = true) String every,
            @JsonProperty("start") String start,
            @JsonProperty("end") String end) implements Injected {
        public Stall {
            Objects.requireNonNull(leaf, "leaf");
            Duration stalled = Durations.parse(stall);
            Duration period = Durations.parse(every);
            // Whole milliseconds: the admin endpoint takes stall_ms and every_ms as integers.
            if (stalled.toMillis() < 1 || stalled.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException("stall: " + stall + " (expected: whole milliseconds, at least 1ms)");
            }
            if (period.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException("every: " + every + " (expected: whole milliseconds)");
            }
            if (stalled.compareTo(period) >= 0) {
                throw new IllegalArgumentException("stall: " + stall + " (expected: shorter than every: " + every + ")");
            }
            requireWindow(start, end);
        }

        @Override
        public String kind() {
            return "stall";
        }

        @Override
        public String adminBody(int leafNumber, long durationMillis) {
            return "{\"stall_ms\": " + stallDuration().toMillis() + ", \"every_ms\": " + period().toMillis()
                    + ", \"duration_ms\": " + durationMillis + "}";
        }

        public Duration stallDuration() {
            return Durations.parse(stall);
        }

        public Duration period() {
            return Durations.parse(every);
        }
    }

    /** Start and end parse, and the end comes after the start. */
    private static void requireWindow(String start, String end) {
        Duration from = start == null ? Duration.ZERO : Durations.parse(start);
        if (end != null && Durations.parse(end).compareTo(from) <= 0) {
            throw new IllegalArgumentException("end: " + end + " (expected: after start: " + (start == null ? "0s" : start) + ")");
        }
    }

    private static void requireLeaf(int leaf) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf: " + leaf + " (expected: >= 0)");
        }
    }
}
