package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * This leaf's links to other leaves for a primary's copies of its numbered batches
 * ({@link ReplicationGroup}); the Netty implementation lives in the leaf's server package.
 *
 * <p>Implementations never block the caller and answer every request exactly once: by the peer,
 * by the connection closing, or after {@code timeoutNanos}. Requests to one address go out on one
 * connection in the order they are sent.
 */
public interface PeerWrites {
    /** No links: every copy fails (a leaf started without them, a test's). */
    PeerWrites NONE = (address, request, timeoutNanos) -> CompletableFuture.failedFuture(
            new IOException("this leaf has no links to other leaves (expected: started with PeerWrites)"));

    /** Sends {@code request} to the leaf at {@code address} (host:port) and completes with its answer. */
    CompletableFuture<WriteResponse> send(String address, WriteRequest request, long timeoutNanos);
}
