package io.hedgerow.root.admission;

import io.hedgerow.common.time.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the root limits the searches it runs at once ({@link AdmissionControl}).
 *
 * @param algorithm    how the limit is found: learnt from latency ({@code GRADIENT2}, {@code VEGAS},
 *                     Netflix's concurrency-limits algorithms), {@code FIXED} at {@code initialLimit},
 *                     or {@code OFF} (no limit: every search runs)
 * @param initialLimit the limit before any latency is known; the limit itself when fixed
 * @param minLimit     the adaptive limit never goes below this (Vegas alone would go down to 1)
 * @param maxLimit     nor above this
 * @param batchShare   batch searches are admitted only while fewer than this share of the limit
 *                     is in flight, so they are shed before interactive ones (0..1]
 * @param retryAfter   what a refusal's {@code Retry-After} header says
 */
public record AdmissionSettings(Algorithm algorithm, int initialLimit, int minLimit, int maxLimit, double batchShare,
        Duration retryAfter) {

    /** How the limit is set. */
    public enum Algorithm {
        /** Netflix's Gradient2: the gradient of a long-term average latency over the current one. */
        GRADIENT2,
        /** Netflix's Vegas: the queue estimated from the least latency seen; backs off on drops. */
        VEGAS,
        /** A fixed limit: {@code initialLimit}. */
        FIXED,
        /** No admission control. */
        OFF;

        /** {@code gradient2}, {@code vegas}, {@code fixed}, {@code off}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Reads a label, in any case; the exception names the text and the accepted values. */
        public static Algorithm parse(String text) {
            for (Algorithm algorithm : values()) {
                if (algorithm.label().equalsIgnoreCase(text.trim())) {
                    return algorithm;
                }
            }
            throw new IllegalArgumentException("admission: '" + text + "' (expected: gradient2, vegas, fixed or off)");
        }
    }

    public AdmissionSettings {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (minLimit < 1) {
            throw new IllegalArgumentException("minLimit: " + minLimit + " (expected: >= 1)");
        }
        if (maxLimit < minLimit) {
            throw new IllegalArgumentException("maxLimit: " + maxLimit + " (expected: >= minLimit " + minLimit + ")");
        }
        if (initialLimit < minLimit || initialLimit > maxLimit) {
            throw new IllegalArgumentException("initialLimit: " + initialLimit + " (expected: " + minLimit + ".."
                    + maxLimit + ", between minLimit and maxLimit)");
        }
        if (!(batchShare > 0 && batchShare <= 1)) {
            throw new IllegalArgumentException("batchShare: " + batchShare + " (expected: > 0 and <= 1)");
        }
        if (retryAfter.isNegative() || retryAfter.isZero() || retryAfter.toSeconds() > 3600) {
            throw new IllegalArgumentException("retryAfter: " + Durations.format(retryAfter)
                    + " (expected: 1s..1h; the header counts whole seconds)");
        }
    }

    /**
     * Vegas at 16 searches in flight, between 16 and 256; batch up to half the limit; retry after
     * 1 s. Measured in docs/benchmarks/overload.md: at twice the capacity Gradient2's limit drifted
     * up with its long-term latency average (admitted p99 99 ms against 12 ms at half load) while
     * Vegas held it near the least latency seen (31 ms, goodput 180% of the capacity). Vegas shrinks
     * to its floor whenever the cluster is quiet (query costs vary tenfold), and a floor of 8 then
     * refused 0.1-0.3% of the searches at half load in the bursts a GC pause makes; 16 refused none.
     */
    public static AdmissionSettings defaults() {
        return new AdmissionSettings(Algorithm.VEGAS, 16, 16, 256, 0.5, Duration.ofSeconds(1));
    }

    /** No admission control: every search runs, as before it existed. */
    public static AdmissionSettings off() {
        return defaults().withAlgorithm(Algorithm.OFF);
    }

    public AdmissionSettings withAlgorithm(Algorithm value) {
        return new AdmissionSettings(value, initialLimit, minLimit, maxLimit, batchShare, retryAfter);
    }

    /** Sets the three limits together, so a command line may move them past each other. */
    public AdmissionSettings withLimits(int initial, int min, int max) {
        return new AdmissionSettings(algorithm, initial, min, max, batchShare, retryAfter);
    }

    public AdmissionSettings withBatchShare(double value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, value, retryAfter);
    }

    public AdmissionSettings withRetryAfter(Duration value) {
        return new AdmissionSettings(algorithm, initialLimit, minLimit, maxLimit, batchShare, value);
    }

    /** For logs and help: {@code vegas from 16 in [16, 256], batch up to 50%}. */
    public String describe() {
        return switch (algorithm) {
            case OFF -> "off";
            case FIXED -> "fixed at " + initialLimit + ", batch up to " + Math.round(batchShare * 100) + "%";
            default -> algorithm.label() + " from " + initialLimit + " in [" + minLimit + ", " + maxLimit + "], batch up to "
                    + Math.round(batchShare * 100) + "%";
        };
    }
}
