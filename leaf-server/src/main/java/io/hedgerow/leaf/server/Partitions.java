package io.hedgerow.leaf.server;

import io.hedgerow.leaf.search.PartitionSearcher;
import java.io.IOException;

/** Small helpers for tasks that pin a partition while they use it. */
final class Partitions {
    private Partitions() {
    }

    /** Releases a partition a task acquired; a failure to close a retired reader is only logged. */
    static void release(PartitionSearcher partition) {
        try {
            partition.release();
        } catch (IOException e) {
            System.getLogger(Partitions.class.getName())
                    .log(System.Logger.Level.WARNING, "closing partition " + partition.partition(), e);
        }
    }
}
