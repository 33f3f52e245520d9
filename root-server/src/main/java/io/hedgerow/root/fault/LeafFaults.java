package io.hedgerow.root.fault;

import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.fault.InjectedStall;
import java.util.concurrent.CompletableFuture;

/**
 * Fault injection in the leaves, for tests and demos, sent over the root's own connections to
 * them. A leaf obeys only when it was started with fault injection enabled ({@code leaf
 * --fault-injection}, {@code local --fault-injection}, {@code EmbeddedCluster.Builder.faultInjection});
 * otherwise it refuses. Every injection is bounded: the leaf clears it by itself when its duration
 * is up, so a controller that dies never leaves a leaf slow. A delay and a stall are independent:
 * each injection replaces only the fault of its own kind at that leaf.
 *
 * <p>Thread-safe; never blocks the caller.
 */
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

    /**
     * Puts {@code stall} in effect at leaf {@code leaf} from now (its first stall starts at once),
     * replacing any stall there, or clears it when {@link InjectedStall#clears()}.
     *
     * @return completes with what the leaf put in effect ({@link InjectedStall#NONE} after a
     *         clear), or exceptionally with a {@link LeafFaultException}
     */
    CompletableFuture<InjectedStall> injectStall(int leaf, InjectedStall stall);
}
