package io.hedgerow.loadgen.run;

import io.hedgerow.loadgen.report.PhaseResult;
import java.util.OptionalDouble;

/**
 * Finds the highest request rate a server sustains within limits: grows the rate geometrically
 * until a step breaks a limit (p99 latency, error rate, or any request dropped by the in-flight
 * cap), then bisects between the best passing rate and the first failing one. Pure: it only
 * proposes rates and judges results, so the search is tested without a server.
 */
public final class CapacitySearch {
    private final double growth;
    private final double maxP99Millis;
    private final double maxErrorRate;
    private final double maxRate;
    private int refineStepsLeft;
    private double bestPass;
    private double firstFail = Double.NaN;
    private double next;

    /**
     * @param startRate    first rate tried, requests per second
     * @param growth       factor between rates while growing, > 1
     * @param maxP99Millis a step passes only if its p99 latency is at most this
     * @param maxErrorRate a step passes only if its error rate is at most this (0..1)
     * @param refineSteps  bisection steps after the first failure
     * @param maxRate      never try more than this
     */
    public CapacitySearch(double startRate, double growth, double maxP99Millis, double maxErrorRate, int refineSteps,
            double maxRate) {
        if (!(startRate > 0)) {
            throw new IllegalArgumentException("startRate: " + startRate + " (expected: > 0)");
        }
        if (!(growth > 1)) {
            throw new IllegalArgumentException("growth: " + growth + " (expected: > 1)");
        }
        if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) {
            throw new IllegalArgumentException("maxErrorRate: " + maxErrorRate + " (expected: 0..1)");
        }
        this.growth = growth;
        this.maxP99Millis = maxP99Millis;
        this.maxErrorRate = maxErrorRate;
        this.refineStepsLeft = refineSteps;
        this.maxRate = maxRate;
        this.next = Math.min(startRate, maxRate);
    }

    /** The rate to try next, or empty when the search is over. */
    public OptionalDouble nextRate() {
        return Double.isNaN(next) ? OptionalDouble.empty() : OptionalDouble.of(next);
    }

    /** Whether a step at some rate stayed within the limits. */
    public boolean passes(PhaseResult step) {
        return step.dropped() == 0 && step.errorRate() <= maxErrorRate && step.percentileMillis(99) <= maxP99Millis;
    }

    /** Judges the step run at the proposed rate and proposes the next one. */
    public boolean observe(PhaseResult step) {
        boolean passed = passes(step);
        double rate = next;
        if (passed) {
            bestPass = Math.max(bestPass, rate);
        } else {
            firstFail = Double.isNaN(firstFail) ? rate : Math.min(firstFail, rate);
        }
        if (Double.isNaN(firstFail)) {
            next = rate >= maxRate ? Double.NaN : Math.min(maxRate, rate * growth);
        } else if (refineStepsLeft-- > 0 && firstFail - bestPass > 1) {
            next = Math.floor((bestPass + firstFail) / 2);
            if (next <= bestPass || next >= firstFail) {
                next = Double.NaN;
            }
        } else {
            next = Double.NaN;
        }
        return passed;
    }

    /** The highest rate that passed; 0 when none did. */
    public double sustainableRate() {
        return bestPass;
    }
}
