package io.hedgerow.cli;

import io.hedgerow.common.time.Durations;
import io.hedgerow.root.placement.PlacementSettings;
import picocli.CommandLine.Option;

/** Where partition copies live and what moves them, shared by {@code root}, {@code local} and {@code demo}. */
final class PlacementOptions {
    @Option(names = "--no-re-replication",
            description = "Leave a lost leaf's partitions one copy short however long it stays away. Default: once it"
                    + " has been gone for --re-replicate-after, its partitions get new copies on the other leaves.")
    boolean noReReplication;

    @Option(names = "--re-replicate-after", paramLabel = "DURATION", defaultValue = "30s",
            description = "How long a leaf may be gone before its partitions are copied to the others: longer than a"
                    + " supervisor's restart (default: ${DEFAULT-VALUE}).")
    String reReplicateAfter;

    @Option(names = "--max-opening-copies", paramLabel = "N", defaultValue = "2",
            description = "Partition copies opening at once across the cluster (default: ${DEFAULT-VALUE}).")
    int maxOpening;

    @Option(names = "--selective-replication",
            description = "Give partitions whose load (leaf service time over 30s) is 2x the median's an extra copy,"
                    + " removed when under 1.3x after at least 60s. Default: off (not measured to leave the no-fault"
                    + " tail alone).")
    boolean selectiveReplication;

    @Option(names = "--rebalancing",
            description = "Move a partition copy from a leaf whose estimated load is 1.5x the mean to the least loaded"
                    + " leaf, one move per 30s at most; never once the cluster took live writes. Default: off.")
    boolean rebalancing;

    PlacementSettings toSettings() {
        return PlacementSettings.defaults()
                .withReReplication(!noReReplication)
                .withGrace(Durations.parse(reReplicateAfter))
                .withMaxOpening(maxOpening)
                .withSelectiveReplication(selectiveReplication)
                .withRebalancing(rebalancing);
    }
}
