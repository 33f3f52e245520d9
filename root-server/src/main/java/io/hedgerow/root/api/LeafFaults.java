package io.hedgerow.root.api;

import io.hedgerow.leaf.fault.InjectedDelay;
import java.util.concurrent.CompletableFuture;

/**
 * Fault injection in the leaves, for tests and demos, sent over the root's own connections to
 * them. A leaf obeys only when it was started with fault injection enabled ({@code leaf
 * --fault-injection}, {@code local --fault-injection}, {@code EmbeddedCluster.Builder.faultInjection});
 * otherwise it refuses. Every injection is bounded: the leaf clears it by itself when its duration
 * is up, so a controller that dies never leaves a leaf slow.
 *
 * <p>Thread-safe; never blocks the caller.
 */
@FunctionalInterface
public interface LeafFaults {

    /**
     * Puts {@code delay} in effect at leaf {@code leaf}, replacing any delay there, or clears it
     * when {@link InjectedDelay#clears()}.
     *
     * @return completes with what the leaf put in effect (with the seed it uses, or
     *         {@link InjectedDelay#NONE} after a clear), or exceptionally with a
     *         {@link LeafFaultException}
     */
    CompletableFuture<InjectedDelay> injectDelay(int leaf, InjectedDelay delay);
}
