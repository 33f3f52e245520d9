package io.hedgerow.api;

/**
 * How much of the index a result covers.
 *
 * @param partitionsTotal    partitions the query was meant for
 * @param partitionsAnswered partitions whose answer is in the result
 * @param docsFraction       fraction of the index's documents held by the answered partitions
 */
public record Coverage(int partitionsTotal, int partitionsAnswered, double docsFraction) {

    public Coverage {
        if (partitionsAnswered < 0 || partitionsAnswered > partitionsTotal) {
            throw new IllegalArgumentException("partitionsAnswered: " + partitionsAnswered
                    + " (expected: 0.." + partitionsTotal + ")");
        }
        if (!(docsFraction >= 0 && docsFraction <= 1)) {
            throw new IllegalArgumentException("docsFraction: " + docsFraction + " (expected: 0..1)");
        }
    }

    public boolean complete() {
        return partitionsAnswered == partitionsTotal;
    }
}
