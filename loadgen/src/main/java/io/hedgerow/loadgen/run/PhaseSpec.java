package io.hedgerow.loadgen.run;

import java.time.Duration;
import java.util.Objects;

/**
 * One phase of load.
 *
 * @param name        shown in progress lines and reports
 * @param duration    how long requests are started
 * @param rate        open loop: requests per second; ignored in closed loop
 * @param arrival     {@code poisson}, {@code constant} or {@code closed}
 * @param concurrency closed loop: requests kept in flight; ignored in open loop
 * @param record      false for a warm-up phase, which runs but is left out of the results
 */
public record PhaseSpec(String name, Duration duration, double rate, String arrival, int concurrency, boolean record) {

    public PhaseSpec {
        Objects.requireNonNull(name, "name");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration: " + duration + " (expected: > 0)");
        }
        switch (arrival) {
            case "poisson", "constant" -> {
                if (!(rate > 0)) {
                    throw new IllegalArgumentException("rate: " + rate + " (expected: > 0 requests per second)");
                }
            }
            case "closed" -> {
                if (concurrency < 1) {
                    throw new IllegalArgumentException("concurrency: " + concurrency + " (expected: >= 1)");
                }
            }
            default -> throw new IllegalArgumentException("arrival: '" + arrival + "' (expected: poisson, constant or closed)");
        }
    }

    public boolean closedLoop() {
        return arrival.equals("closed");
    }

    /** "open/poisson", "open/constant" or "closed". */
    public String mode() {
        return closedLoop() ? "closed" : "open/" + arrival;
    }
}
