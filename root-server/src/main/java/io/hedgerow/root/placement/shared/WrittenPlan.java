package io.hedgerow.root.placement.shared;

import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The placement plan as its writer stored it ({@link PlanCodec}), before any reader maps it to its own
 * leaf slots ({@link PlanSlotMapper}): the leaf numbers are the writer's slots, and the addresses (when
 * the writer stored them) name the leaves. Immutable.
 *
 * @param leader             the participant name of the root that wrote it
 * @param leaves             the writer's number of leaf slots; -1 when not stored
 * @param partitions         each partition's copies, preferred first
 * @param targetVersions     by the writer's slot
 * @param knownLeaves        the writer's filled slots' addresses; null when not stored (an older writer)
 * @param versionsByAddress  each leaf's target version by its address; null when not stored
 */
record WrittenPlan(String leader, int leaves, List<List<Copy>> partitions, List<Long> targetVersions,
        List<String> knownLeaves, Map<String, Long> versionsByAddress) {

    /**
     * One copy as written.
     *
     * @param leaf    the writer's slot
     * @param address its leaf's {@code host:port}; null in a plan from before addresses were stored
     */
    record Copy(int leaf, String address, Placement.Reason reason, Placement.CopyState state) {
    }

    WrittenPlan {
        partitions = partitions.stream().map(List::copyOf).toList();
        targetVersions = List.copyOf(targetVersions);
        knownLeaves = knownLeaves == null ? null : List.copyOf(knownLeaves);
        versionsByAddress = versionsByAddress == null ? null : Map.copyOf(versionsByAddress);
    }

    /** Whether every copy names its leaf's address (else the plan can only be read by position). */
    boolean namesAddresses() {
        return partitions.stream().flatMap(List::stream).allMatch(copy -> copy.address() != null);
    }

    /**
     * The plan read by position, sized as written: the writer's slot numbers taken for the reader's.
     *
     * @throws IllegalArgumentException when it is not a valid plan (a copy on a leaf it has no version for)
     */
    PlacementPlan byPosition() {
        List<List<PlacementPlan.PlannedCopy>> copies = new ArrayList<>();
        for (List<Copy> partition : partitions) {
            copies.add(partition.stream()
                    .map(copy -> new PlacementPlan.PlannedCopy(copy.leaf(), copy.reason(), copy.state())).toList());
        }
        return new PlacementPlan(copies, targetVersions);
    }
}
