package io.hedgerow.root.adapt;

/**
 * When a leaf counts as stalled: work is outstanding there (cancelled calls included: a leaf
 * answers every call, cancelled or not), and it has answered nothing for {@code factor} times its
 * usual latency, or {@code minNanos} if that is longer. A process that is stopped keeps its
 * connections open, so readiness alone would keep choosing it; silence while it owes answers is
 * what gives it away. It stops counting as stalled at its next answer. Pure.
 *
 * @param factor   multiple of the leaf's usual latency (its response-time EWMA)
 * @param minNanos the shortest silence that counts, also the threshold while no latency is known
 */
public record StallRule(double factor, long minNanos) {

    public StallRule {
        if (!(factor >= 1) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: >= 1, finite)");
        }
        if (minNanos <= 0) {
            throw new IllegalArgumentException("minNanos: " + minNanos + " (expected: > 0)");
        }
    }

    /** The silence after which a leaf whose usual latency is {@code usualNanos} (0: unknown) is stalled. */
    public long thresholdNanos(double usualNanos) {
        return Math.max(minNanos, (long) (factor * usualNanos));
    }

    /**
     * @param outstanding calls sent to the leaf and not answered (cancelled ones included)
     * @param quietNanos  time since its last answer, or since work became outstanding if later
     * @param usualNanos  its usual latency, 0 when unknown
     */
    public boolean stalled(int outstanding, long quietNanos, double usualNanos) {
        return outstanding > 0 && quietNanos > thresholdNanos(usualNanos);
    }
}
