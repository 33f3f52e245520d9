package io.hedgerow.root.http;

import java.util.concurrent.CompletableFuture;

/**
 * Operations on leaf processes that only a root which started them can do (a local cluster).
 * Exposed as {@code POST /admin/leaves/{n}/restart}, on loopback, so fault scenarios can bring
 * back a leaf they killed.
 */
@FunctionalInterface
public interface LeafAdmin {

    /**
     * Starts leaf {@code leaf} again if its process is gone.
     *
     * @return completes with a description of what was done, or exceptionally with an
     *         {@link IllegalStateException} (the leaf is running) or {@link IllegalArgumentException}
     *         (no such leaf)
     */
    CompletableFuture<String> restartLeaf(int leaf);
}
