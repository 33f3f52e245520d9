package io.hedgerow.root.fanout;

import io.hedgerow.common.wire.proto.Status;

/** A request sent to a leaf and waiting for its answer on a {@link LeafConnection}. */
sealed interface LeafCall permits QueryCall, FaultCall {
    long requestId();

    LeafConnection connection();

    /** True once answered, failed or cancelled. */
    boolean isDone();

    void markDone();

    /** The connection closed before the answer came. */
    void connectionLost(String reason);

    /**
     * The leaf's answer to a request the root had cancelled: it tells whether the cancel came in
     * time ({@link Status#CANCELLED}), stopped the work ({@code cutShort}), or was too late.
     */
    default void answeredAfterCancel(Status status, boolean cutShort) {
    }
}
