package io.hedgerow.root.transport;

/** A request sent to a leaf and waiting for its answer on a {@link LeafConnection}. */
sealed interface LeafCall permits QueryCall, FaultCall {
    long requestId();

    LeafConnection connection();

    /** True once answered, failed or cancelled. */
    boolean isDone();

    void markDone();

    /** The connection closed before the answer came. */
    void connectionLost(String reason);
}
