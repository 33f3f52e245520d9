package io.hedgerow.root.http;

import java.util.concurrent.CompletableFuture;

/**
 * Operations on leaf processes that only a root which started them can do (a local cluster).
 * Exposed as {@code POST /admin/leaves/{n}/restart}, so fault scenarios can bring back a leaf they
 * killed. A root given one also offers {@code /admin/leaves/{n}/delay} and {@code /stall}; a root
 * given none has no {@code /admin} at all.
 */
@FunctionalInterface
public interface LeafAdmin {

    /**
     * Starts leaf {@code leaf} again if its process is gone.
     *
     * @return completes with a description of what was done, or exceptionally with an
     *         {@link IllegalStateException} (the leaf is running), {@link IllegalArgumentException}
     *         (no such leaf) or {@link UnsupportedOperationException} (this root cannot restart leaves)
     */
    CompletableFuture<String> restartLeaf(int leaf);

    /**
     * Restarts every leaf one at a time, each drained first and ready again before the next
     * ({@code POST /admin/leaves/restart?rolling=true}).
     *
     * @return completes when done with a description, or exceptionally with an
     *         {@link IllegalStateException} (one is running already) or {@link UnsupportedOperationException}
     */
    default CompletableFuture<String> restartAllRolling() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "a rolling restart needs a local cluster ('hedgerow local'), which started its leaves"));
    }
}
