package io.hedgerow.loadgen.http;

/** Hears how each request of the load ended. Called on the client's event loop. */
public interface ResponseListener {

    /**
     * An HTTP response arrived.
     *
     * @param intendedNanos when the request was meant to start (open loop) or was sent (closed loop)
     * @param status        HTTP status
     * @param tainted       the body said {@code "tainted":true}
     * @param docsFraction  for a tainted answer, its {@code coverage.docs_fraction} (0..1); NaN when not
     *                      tainted or the body did not say
     */
    void completed(long intendedNanos, int status, boolean tainted, double docsFraction);

    /** No response: the connection failed or closed first. */
    void failed(long intendedNanos, String reason);
}
