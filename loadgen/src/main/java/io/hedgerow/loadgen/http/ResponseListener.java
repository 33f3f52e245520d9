package io.hedgerow.loadgen.http;

/** Hears how each request of the load went. Called on the client's event loop. */
public interface ResponseListener {

    /**
     * The generator got to the request and hands it to a connection (a new one connects first, and
     * that time is the request's, not the generator's): how late the generator was against its
     * schedule is {@code sentNanos - intendedNanos}.
     *
     * @param intendedNanos when the request was meant to start (open loop) or was handed over (closed loop)
     * @param sentNanos     when it was handed to a connection
     */
    default void sent(long intendedNanos, long sentNanos) {
    }

    /**
     * An HTTP response arrived.
     *
     * @param intendedNanos when the request was meant to start (open loop) or was sent (closed loop)
     * @param status        HTTP status
     * @param tainted       the body said {@code "tainted":true}
     * @param docsFraction  for a tainted answer, its {@code coverage.docs_fraction} (0..1); NaN when not
     *                      tainted or the body did not say
     * @param errorCode     for an error answer, the {@code error} code of its body ({@code unavailable},
     *                      {@code blocklisted}...); null for an answer, or a body without one
     */
    void completed(long intendedNanos, int status, boolean tainted, double docsFraction, String errorCode);

    /**
     * The response about to be {@link #completed} refused the request (503 or 429) and asked the
     * client to retry after this long ({@code Retry-After}, in seconds on the wire).
     */
    default void retryAfter(long nanos) {
    }

    /** No response: the connection failed or closed first. */
    void failed(long intendedNanos, String reason);
}
