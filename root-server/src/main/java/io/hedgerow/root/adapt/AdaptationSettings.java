package io.hedgerow.root.adapt;

import java.time.Duration;
import java.util.Objects;

/**
 * How the root adapts across requests: which replica gets a sub-request, when a leaf counts as
 * stalled, and when it goes on (and comes off) latency-induced probation. Immutable; parsed once at
 * start-up. Every part is on by default and can be turned off alone.
 *
 * @param latencyAwareChoice rank replicas as C3 does ({@link ReplicaRank}); off: fewest outstanding
 * @param stallDetection     avoid a leaf that has answered nothing for {@code stallFactor} times its
 *                           usual latency (at least {@code stallMin}) while work is outstanding there
 * @param stallFactor        multiple of the leaf's usual latency (its response-time EWMA)
 * @param stallMin           the shortest silence that counts as a stall
 * @param probation          latency-induced probation with shadow requests ({@link Probation})
 * @param probationFactor    a leaf is slow while its latency EWMA exceeds this multiple of its peers'
 *                           median...
 * @param probationMinExcess ...and exceeds that median by at least this much (sub-millisecond
 *                           latencies differ by large factors and mean nothing)
 * @param probationAfter     how long a leaf must stay slow before it goes on probation
 * @param probationMinSamples answers the leaf must have given while slow (and, to come back, while
 *                           normal)
 * @param probationRecovery  how long its latency must stay normal (under half the entry threshold's
 *                           factor) before it returns to rotation
 * @param shadowFraction     the fraction of primaries of a partition with a replica on probation
 *                           that send that replica a shadow copy (SHADOW class, answer dropped,
 *                           charged to the hedge budget)
 * @param slowStart          how long a leaf that comes back takes at best to get its full share of
 *                           primaries ({@link SlowStart}, which its latency caps as well); zero: off
 */
public record AdaptationSettings(
        boolean latencyAwareChoice,
        boolean stallDetection,
        double stallFactor,
        Duration stallMin,
        boolean probation,
        double probationFactor,
        Duration probationMinExcess,
        Duration probationAfter,
        int probationMinSamples,
        Duration probationRecovery,
        double shadowFraction,
        Duration slowStart) {

    public AdaptationSettings {
        if (!(stallFactor >= 1) || Double.isInfinite(stallFactor)) {
            throw new IllegalArgumentException("stallFactor: " + stallFactor + " (expected: >= 1, finite)");
        }
        requirePositive("stallMin", stallMin);
        if (!(probationFactor > 1) || Double.isInfinite(probationFactor)) {
            throw new IllegalArgumentException("probationFactor: " + probationFactor + " (expected: > 1, finite)");
        }
        Objects.requireNonNull(probationMinExcess, "probationMinExcess");
        if (probationMinExcess.isNegative()) {
            throw new IllegalArgumentException("probationMinExcess: " + probationMinExcess + " (expected: >= 0)");
        }
        requirePositive("probationAfter", probationAfter);
        requirePositive("probationRecovery", probationRecovery);
        if (probationMinSamples < 1) {
            throw new IllegalArgumentException("probationMinSamples: " + probationMinSamples + " (expected: >= 1)");
        }
        Objects.requireNonNull(slowStart, "slowStart");
        if (slowStart.isNegative()) {
            throw new IllegalArgumentException("slowStart: " + slowStart + " (expected: >= 0; 0 for off)");
        }
        if (!(shadowFraction >= 0 && shadowFraction <= 1)) {
            throw new IllegalArgumentException("shadowFraction: " + shadowFraction + " (expected: >= 0.0 and <= 1.0)");
        }
    }

    /**
     * Everything on: C3 ranking; a stall after 8 usual latencies (at least 20 ms) of silence;
     * probation for a leaf 3 times slower than its peers' median (and 2 ms slower) for 2 s over 20
     * answers, back after 3 s of normal latency; a shadow copy for 20% of the primaries it misses;
     * a slow start of 30 s at least for a leaf that comes back.
     */
    public static AdaptationSettings defaults() {
        return new AdaptationSettings(true, true, 8, Duration.ofMillis(20), true, 3, Duration.ofMillis(2),
                Duration.ofSeconds(2), 20, Duration.ofSeconds(3), 0.2, Duration.ofSeconds(30));
    }

    /** Nothing adapts: the fewest outstanding replica, no stall detection, no probation, no slow start. */
    public static AdaptationSettings off() {
        return defaults().withLatencyAwareChoice(false).withStallDetection(false).withProbation(false)
                .withSlowStart(Duration.ZERO);
    }

    public AdaptationSettings withLatencyAwareChoice(boolean on) {
        return new AdaptationSettings(on, stallDetection, stallFactor, stallMin, probation, probationFactor,
                probationMinExcess, probationAfter, probationMinSamples, probationRecovery, shadowFraction, slowStart);
    }

    public AdaptationSettings withStallDetection(boolean on) {
        return new AdaptationSettings(latencyAwareChoice, on, stallFactor, stallMin, probation, probationFactor,
                probationMinExcess, probationAfter, probationMinSamples, probationRecovery, shadowFraction, slowStart);
    }

    public AdaptationSettings withProbation(boolean on) {
        return new AdaptationSettings(latencyAwareChoice, stallDetection, stallFactor, stallMin, on, probationFactor,
                probationMinExcess, probationAfter, probationMinSamples, probationRecovery, shadowFraction, slowStart);
    }

    /** Probation's timing: slow for {@code after} before it starts, normal for {@code recovery} before it ends. */
    public AdaptationSettings withProbationTiming(Duration after, Duration recovery, int minSamples) {
        return new AdaptationSettings(latencyAwareChoice, stallDetection, stallFactor, stallMin, probation, probationFactor,
                probationMinExcess, after, minSamples, recovery, shadowFraction, slowStart);
    }

    public AdaptationSettings withShadowFraction(double fraction) {
        return new AdaptationSettings(latencyAwareChoice, stallDetection, stallFactor, stallMin, probation, probationFactor,
                probationMinExcess, probationAfter, probationMinSamples, probationRecovery, fraction, slowStart);
    }

    /** How long a returning leaf's slow start takes at best ({@link SlowStart}); zero: off. */
    public AdaptationSettings withSlowStart(Duration window) {
        return new AdaptationSettings(latencyAwareChoice, stallDetection, stallFactor, stallMin, probation, probationFactor,
                probationMinExcess, probationAfter, probationMinSamples, probationRecovery, shadowFraction, window);
    }

    /** The stall rule these settings give, or null when stall detection is off. */
    public StallRule stallRule() {
        return stallDetection ? new StallRule(stallFactor, stallMin.toNanos()) : null;
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
    }
}
