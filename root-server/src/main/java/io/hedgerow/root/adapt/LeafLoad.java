package io.hedgerow.root.adapt;

/**
 * What one client (an event loop's connection, or the detached root) has learnt of one leaf's load
 * from its answers: EWMAs of the response time it saw and of the service time and queue length the
 * leaf reported, as C3 keeps them; and since when the leaf has owed an answer without giving one,
 * for the {@link StallRule}. Only answers to searches feed the EWMAs (a fetch is another kind of
 * work); any answer at all ends a silence.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: confined to its connection's event loop (or
 * the simulator's thread). Times come in with the calls, on the root's injected ticker.
 */
public final class LeafLoad {
    /** Elasticsearch's weight of a new sample: about the last few answers count. */
    static final double ALPHA = 0.3;

    private double responseNanos;
    private double serviceNanos;
    private double queueLength;
    private long samples;
    /** The last answer, or when work became outstanding after a time with none. */
    private long quietSinceNanos;

    /** A call goes out at {@code nowNanos}, with {@code outstandingBefore} calls already owed. */
    public void sent(long nowNanos, int outstandingBefore) {
        if (outstandingBefore == 0) {
            quietSinceNanos = nowNanos; // it owed nothing: no silence before this counts
        }
    }

    /** Any answer (or cancel acknowledgement) came at {@code nowNanos}: the leaf is not silent. */
    public void heard(long nowNanos) {
        quietSinceNanos = nowNanos;
    }

    /** A search answered OK at {@code nowNanos}: one sample of each EWMA. */
    public void searched(long nowNanos, long responseNanos, long serviceNanos, int queueLength) {
        heard(nowNanos);
        if (samples++ == 0) {
            this.responseNanos = responseNanos;
            this.serviceNanos = serviceNanos;
            this.queueLength = queueLength;
            return;
        }
        this.responseNanos += ALPHA * (responseNanos - this.responseNanos);
        this.serviceNanos += ALPHA * (serviceNanos - this.serviceNanos);
        this.queueLength += ALPHA * (queueLength - this.queueLength);
    }

    /**
     * A replica choice passed this leaf over for {@code winner}: one sample halfway between the two,
     * as Elasticsearch's adaptive replica selection adjusts the losers, so that a leaf once measured
     * slow is tried again at light load instead of never (its EWMAs move only when it answers).
     */
    public void passedOver(LeafLoad winner) {
        if (samples == 0 || winner.samples == 0) {
            return;
        }
        responseNanos += ALPHA * ((winner.responseNanos - responseNanos) / 2);
        serviceNanos += ALPHA * ((winner.serviceNanos - serviceNanos) / 2);
        queueLength += ALPHA * ((winner.queueLength - queueLength) / 2);
    }

    public double responseNanos() {
        return responseNanos;
    }

    public double serviceNanos() {
        return serviceNanos;
    }

    public double queueLength() {
        return queueLength;
    }

    /** Searches answered OK so far: 0 means nothing is known. */
    public long samples() {
        return samples;
    }

    /** How long the leaf has been silent at {@code nowNanos} (meaningful while it owes answers). */
    public long quietNanos(long nowNanos) {
        return nowNanos - quietSinceNanos;
    }

    /** Whether {@code rule} says the leaf is stalled, owing {@code outstanding} answers at {@code nowNanos}. */
    public boolean stalled(StallRule rule, int outstanding, long nowNanos) {
        return rule != null && rule.stalled(outstanding, quietNanos(nowNanos), samples == 0 ? 0 : responseNanos);
    }
}
