package io.hedgerow.root.write;

import io.hedgerow.root.cluster.LeafAddress;

/**
 * Which replicas of a partition hold every acknowledged write, as the root's write path knows it:
 * read-only, for whoever chooses replicas for searches (so that a replica that missed writes is not
 * read from until it has caught up, as Elasticsearch reads only in-sync copies).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe, non-blocking and cheap (one short lock per
 * call): fit for the search path. The answer is the root's knowledge at the call; a replica can
 * leave the in-sync set just after. A replica counts as in sync until the root has seen it fail a
 * write or, at start, until the root has compared every replica's last sequence number (done as the
 * root starts, once every replica has answered): a root knows nothing before that, and refusing
 * every replica would refuse every search.
 */
public interface ReplicaSync {
    /**
     * Whether {@code leaf}'s replica of {@code partition} holds every acknowledged write of it; true
     * for a leaf the root does not know as a replica of that partition (nothing to say about it).
     */
    boolean inSync(int partition, LeafAddress leaf);
}
