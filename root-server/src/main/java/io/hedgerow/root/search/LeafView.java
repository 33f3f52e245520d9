package io.hedgerow.root.search;

import io.hedgerow.common.wire.proto.Priority;

/**
 * What a search may know of the leaves from its event loop: which are ready, how busy, and how far
 * each has got through what this loop's connection sent it ({@link LeafProgress}, for the canary
 * check). The Netty side implements it over a loop's connections; tests fake it.
 */
public interface LeafView extends DispatchPolicy.ReplicaView {

    /**
     * True when the leaf finished a sub-request of the class of one sent at {@code sentNanos}, or of
     * a lower class, that was sent after it on the same connection: later work overtook it.
     */
    boolean overtaken(int leaf, long sentNanos, Priority priority);

    /** True when the leaf finished any sub-request since {@code nanos}. */
    boolean doneSince(int leaf, long nanos);
}
