package io.hedgerow.root.transport;

import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.root.fault.LeafFaultException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A fault injection (a delay or a stall) sent to one leaf, waiting for its acknowledgement. It fails
 * rather than waits for ever: a paused leaf never answers, and the admin request that asked must
 * get an answer. A refusal completes the promise with a {@link LeafFaultException}, so it holds
 * only acknowledgements of injections the leaf applied.
 *
 * <p><b>Assumptions and guarantees.</b> Confined to its connection's event loop, like the
 * connection. The promise completes exactly once, on that loop.
 */
final class FaultCall implements LeafCall {
    private final LeafConnection connection;
    private final long requestId;
    private final InjectFault injection;
    private final CompletableFuture<InjectFaultAck> promise;
    private ScheduledFuture<?> timeout;
    private long timeoutNanos;
    private boolean done;

    /**
     * @param injection what to inject; its request id is set here
     */
    FaultCall(LeafConnection connection, long requestId, InjectFault injection, CompletableFuture<InjectFaultAck> promise) {
        this.connection = connection;
        this.requestId = requestId;
        this.injection = injection;
        this.promise = promise;
    }

    /** Sends the injection; fails with {@code TIMED_OUT} when no ack comes within {@code timeoutNanos}. */
    void start(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
        connection.send(this, injection.toBuilder().setRequestId(requestId).build());
        timeout = connection.loop().schedule(this::timedOut, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    void answered(InjectFaultAck ack) {
        if (!ack.getError().isEmpty()) {
            fail(LeafFaultException.Kind.REFUSED, leafName() + " refused: " + ack.getError());
        } else if (finish()) {
            promise.complete(ack);
        }
    }

    private void timedOut() {
        connection.forget(this);
        fail(LeafFaultException.Kind.TIMED_OUT, leafName() + " did not acknowledge within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (is it paused?)");
    }

    @Override
    public void connectionLost(String reason) {
        fail(LeafFaultException.Kind.UNAVAILABLE, "lost " + leafName() + " before it answered: " + reason);
    }

    private void fail(LeafFaultException.Kind kind, String message) {
        if (finish()) {
            promise.completeExceptionally(new LeafFaultException(kind, message));
        }
    }

    private boolean finish() {
        if (done) {
            return false;
        }
        done = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        return true;
    }

    private String leafName() {
        return "leaf " + connection.leaf() + " (" + connection.status().address() + ")";
    }

    @Override
    public long requestId() {
        return requestId;
    }

    @Override
    public LeafConnection connection() {
        return connection;
    }

    @Override
    public boolean isDone() {
        return done;
    }

    @Override
    public void markDone() {
        done = true;
    }
}
