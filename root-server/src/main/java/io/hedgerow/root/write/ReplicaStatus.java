package io.hedgerow.root.write;

import io.hedgerow.root.cluster.LeafAddress;

/**
 * One replica of a partition as the write path sees it, for {@code /cluster}.
 *
 * @param leaf     the replica's leaf
 * @param primary  whether it orders the partition's writes now
 * @param inSync   whether it holds every acknowledged write
 * @param knownSeq the highest seq up to which it is known to hold every write (-1: not known, e.g.
 *                 unreachable since the root started)
 * @param problem  why it is out of sync, or why catching it up failed; null when none
 */
public record ReplicaStatus(LeafAddress leaf, boolean primary, boolean inSync, long knownSeq, String problem) {
}
