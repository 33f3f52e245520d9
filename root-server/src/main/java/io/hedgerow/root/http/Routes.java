package io.hedgerow.root.http;

import io.netty.handler.codec.http.FullHttpRequest;

/**
 * A group of paths of the HTTP API and how to answer them. {@link HttpApiHandler} asks each group
 * in turn whether it {@link #handles} a path; a new group of endpoints (say {@code /documents}) is
 * one more implementation added to its list.
 *
 * <p><b>Assumptions and guarantees.</b> Called on the connection's event loop, one request of a
 * connection at a time; {@link #handle} must answer exactly once (with {@link HttpApiHandler#send}
 * or {@link HttpApiHandler#sendError}), now or later, and never block the loop.
 */
interface Routes {
    /** Whether this group answers {@code path}. */
    boolean handles(String path);

    /** Whether its requests must carry the admin token ({@link AdminToken}). */
    default boolean needsAdminToken() {
        return false;
    }

    /** Whether this request changes documents, so must carry the write token when the root has one. */
    default boolean isWrite(FullHttpRequest request) {
        return false;
    }

    /**
     * Answers the request.
     *
     * @throws ApiException to refuse it; the handler answers with the exception's status and detail
     */
    void handle(Exchange exchange) throws ApiException;
}
