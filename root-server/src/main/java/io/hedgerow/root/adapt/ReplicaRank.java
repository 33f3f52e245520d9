package io.hedgerow.root.adapt;

/**
 * C3's replica ranking (Suresh et al., "C3: Cutting Tail Latency in Cloud Data Stores via Adaptive
 * Replica Selection", NSDI 2015), as Elasticsearch's adaptive replica selection computes it:
 *
 * <pre>  rank = R - 1/mu + q^3 / mu,   q = 1 + outstanding * clients + Q</pre>
 *
 * where R is the EWMA of the root's response time from the leaf, 1/mu the EWMA of the leaf's own
 * service time, Q the EWMA of the queue length the leaf reports, and {@code outstanding * clients}
 * the concurrency compensation: this client's outstanding calls stand for every client's (here a
 * client is one of the root's event loops, each with its own connections). The cube punishes a long
 * queue far more than a slightly slower service: a leaf with a queue is avoided before it becomes the
 * tail. Lower is better. Times in milliseconds, as the paper's formula is stated. Pure.
 */
public final class ReplicaRank {
    private static final double NANOS_PER_MILLI = 1e6;

    private ReplicaRank() {
    }

    /**
     * @param responseNanos EWMA of the round trip the root saw
     * @param serviceNanos  EWMA of the service time the leaf reported
     * @param queueLength   EWMA of the queue length the leaf reported
     * @param outstanding   calls outstanding from this client
     * @param clients       clients that share the leaf (the root's event loops)
     */
    public static double rank(double responseNanos, double serviceNanos, double queueLength, int outstanding,
            int clients) {
        double q = 1 + (double) outstanding * clients + queueLength;
        double service = serviceNanos / NANOS_PER_MILLI;
        return responseNanos / NANOS_PER_MILLI - service + q * q * q * service;
    }
}
