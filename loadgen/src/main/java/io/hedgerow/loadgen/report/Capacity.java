package io.hedgerow.loadgen.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * What a capacity search found.
 *
 * @param ratePerSecond the highest rate that stayed within the limits and was confirmed by a rerun;
 *                      for {@link Status#NOT_REACHED}, the ceiling that held; 0 when none passed
 * @param status        how to read the rate
 * @param limits        the limits a rate had to keep, e.g. {@code p99 <= 20 ms, errors <= 1%, ...}
 * @param detail        one line on how the search went (steps, failed confirmations)
 */
public record Capacity(
        @JsonProperty("rate_per_s") double ratePerSecond,
        @JsonProperty("status") Status status,
        @JsonProperty("limits") String limits,
        @JsonProperty("detail") String detail) {

    public enum Status {
        /** The rate passed, and passed again when rerun. */
        CONFIRMED,
        /** Every step passed up to the highest rate allowed: the capacity is above it. */
        NOT_REACHED,
        /** No rate passed (or none was confirmed). */
        NOT_FOUND
    }

    public Capacity {
        Objects.requireNonNull(status, "status");
    }
}
