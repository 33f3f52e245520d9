package io.hedgerow.root.cost;

import java.time.Duration;
import java.util.Objects;

/**
 * How the root admits batch work to its leaves ({@link BatchAdmission}, {@link BatchLimit}).
 *
 * @param maxInFlight  the most batch sub-requests (searches and fetches) one leaf may hold at once, the
 *                     limit's ceiling; 0 turns admission off (batch goes out as it comes)
 * @param minInFlight  the floor the limit never goes under, so batch work always progresses
 * @param window       how often the limit is adjusted, from the interactive latency of that window
 * @param tolerance    the limit is halved when a window's interactive p99 is more than this many times
 *                     the lowest window p99 of the last {@code baselineWindows}, and raised by one otherwise
 * @param floor        a p99 under this never lowers the limit: below it, differences are noise
 * @param baselineWindows windows the baseline (the lowest p99) is remembered for
 * @param minSamples   a window with fewer interactive answers says nothing of the interactive latency:
 *                     the limit is raised (there is little interactive work to protect)
 */
public record BatchAdmissionSettings(int maxInFlight, int minInFlight, Duration window, double tolerance,
        Duration floor, int baselineWindows, int minSamples) {
    /** The default ceiling of batch sub-requests per leaf. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 8;

    public BatchAdmissionSettings {
        if (maxInFlight < 0) {
            throw new IllegalArgumentException("maxInFlight: " + maxInFlight + " (expected: >= 0; 0 for off)");
        }
        if (minInFlight < 1 || (maxInFlight > 0 && minInFlight > maxInFlight)) {
            throw new IllegalArgumentException("minInFlight: " + minInFlight + " (expected: 1.." + maxInFlight + ")");
        }
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(floor, "floor");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
        }
        if (!(tolerance > 1)) {
            throw new IllegalArgumentException("tolerance: " + tolerance + " (expected: > 1)");
        }
        if (baselineWindows < 1 || minSamples < 1) {
            throw new IllegalArgumentException("baselineWindows: " + baselineWindows + ", minSamples: " + minSamples
                    + " (expected: both >= 1)");
        }
    }

    /**
     * At most 8 batch sub-requests per leaf (four two-worker leaves' queues stay shallow), at least 1;
     * adjusted every 500 ms; halved when the interactive p99 is 1.5 times its best of the last 30 s and
     * over 2 ms, from windows of at least 20 interactive answers.
     */
    public static BatchAdmissionSettings defaults() {
        return new BatchAdmissionSettings(DEFAULT_MAX_IN_FLIGHT, 1, Duration.ofMillis(500), 1.5, Duration.ofMillis(2), 60, 20);
    }

    /** No admission: batch goes out as it comes. */
    public static BatchAdmissionSettings off() {
        return defaults().withMaxInFlight(0);
    }

    public boolean enabled() {
        return maxInFlight > 0;
    }

    public BatchAdmissionSettings withMaxInFlight(int max) {
        return new BatchAdmissionSettings(max, Math.min(minInFlight, Math.max(1, max)), window, tolerance, floor,
                baselineWindows, minSamples);
    }
}
