package io.hedgerow.loadgen.schedule;

import java.util.SplittableRandom;

/**
 * When open-loop requests start: the gap before each next request. Pure and deterministic for a
 * given seed, so a run's arrivals can be replayed and tested.
 */
public interface ArrivalSchedule {

    /** Nanoseconds from the previous request's intended start to the next one's. */
    long nextGapNanos();

    /** The rate this schedule averages, in requests per second. */
    double ratePerSecond();

    /** A label for reports: "constant" or "poisson". */
    String kind();

    /** Exactly {@code rate} requests per second, evenly spaced. */
    static ArrivalSchedule constant(double ratePerSecond) {
        requirePositive(ratePerSecond);
        long gap = Math.max(1, Math.round(1e9 / ratePerSecond));
        return new ArrivalSchedule() {
            @Override
            public long nextGapNanos() {
                return gap;
            }

            @Override
            public double ratePerSecond() {
                return ratePerSecond;
            }

            @Override
            public String kind() {
                return "constant";
            }
        };
    }

    /**
     * Poisson arrivals at {@code rate} per second: exponentially distributed gaps, as independent
     * users produce. Bursts happen, as they do in production; that is the point.
     */
    static ArrivalSchedule poisson(double ratePerSecond, long seed) {
        requirePositive(ratePerSecond);
        SplittableRandom random = new SplittableRandom(seed);
        double meanGapNanos = 1e9 / ratePerSecond;
        return new ArrivalSchedule() {
            @Override
            public long nextGapNanos() {
                // 1 - u is in (0, 1], so the log is finite.
                return Math.max(1, Math.round(-Math.log(1.0 - random.nextDouble()) * meanGapNanos));
            }

            @Override
            public double ratePerSecond() {
                return ratePerSecond;
            }

            @Override
            public String kind() {
                return "poisson";
            }
        };
    }

    private static void requirePositive(double ratePerSecond) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("rate: " + ratePerSecond + " (expected: > 0 requests per second)");
        }
    }
}
