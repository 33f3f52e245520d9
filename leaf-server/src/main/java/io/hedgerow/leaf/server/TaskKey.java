package io.hedgerow.leaf.server;

/**
 * How a leaf knows a request: by the root that sent it and the request id that root gave it. Each
 * root makes its request ids unique among its own, and roots have distinct random ids, so two roots
 * (or a root and its restarted self, which draws a new id) never name one task.
 *
 * @param rootId    the sending root's id, from its Hello
 * @param requestId the request id, unique per root
 */
record TaskKey(long rootId, long requestId) {
}
