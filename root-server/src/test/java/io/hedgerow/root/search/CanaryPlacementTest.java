package io.hedgerow.root.search;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.cluster.PartitionAssignment;
import org.junit.jupiter.api.Test;

class CanaryPlacementTest {

    private static final DispatchPolicy.ReplicaView ALL_READY = new DispatchPolicy.ReplicaView() {
        @Override
        public boolean isReady(int leaf) {
            return true;
        }

        @Override
        public int outstanding(int leaf) {
            return 0;
        }
    };

    @Test
    void prefersALeafSharingNoPartitionWithTheCanarysLeaves() {
        // 4 leaves, 8 partitions, 2 replicas: leaf 0's partner, leaf 1, shares no partition with it.
        PartitionAssignment assignment = PartitionAssignment.spread(8, 4, 2);

        CanaryPlacement.Choice choice = CanaryPlacement.choose(assignment, ALL_READY, LeafSet.of(0), p -> p != 0);

        assertThat(choice).as("leaf 1 holds partitions 1, 2, 5, 6 and 7, none on leaf 0")
                .isEqualTo(new CanaryPlacement.Choice(1, 1));
        assertThat(assignment.partnerOf(0)).isEqualTo(1);
    }

    @Test
    void otherwiseAPartitionWhoseOtherReplicaIsNotOnTheCanarysLeaf() {
        // 5 leaves, 10 partitions: every pair of leaves shares a partition.
        PartitionAssignment assignment = PartitionAssignment.spread(10, 5, 2);
        assertThat(assignment.partnerOf(2)).isEqualTo(-1);

        CanaryPlacement.Choice choice = CanaryPlacement.choose(assignment, ALL_READY, LeafSet.of(2), p -> p != 2);

        assertThat(choice.leaf()).isNotEqualTo(2);
        assertThat(assignment.replicasOf(choice.partition())).as("partition %d keeps a replica off leaf 2", choice.partition())
                .doesNotContain(2);
    }

    @Test
    void skipsLeavesThatAreDownAndFindsNothingWhenNoneIsLeft() {
        PartitionAssignment assignment = PartitionAssignment.spread(8, 4, 2);
        DispatchPolicy.ReplicaView onlyLeaf3 = new DispatchPolicy.ReplicaView() {
            @Override
            public boolean isReady(int leaf) {
                return leaf == 3;
            }

            @Override
            public int outstanding(int leaf) {
                return 0;
            }
        };

        CanaryPlacement.Choice onLeaf3 = CanaryPlacement.choose(assignment, onlyLeaf3, LeafSet.of(2), p -> p != 2);
        assertThat(onLeaf3.leaf()).isEqualTo(3);
        assertThat(assignment.partitionsOf(3)).contains(onLeaf3.partition());
        assertThat(CanaryPlacement.choose(assignment, onlyLeaf3, LeafSet.of(3), p -> true)).isNull();
        // Two leaves holding every partition: the second opinion still goes, on any partition.
        PartitionAssignment two = PartitionAssignment.spread(4, 2, 2);
        assertThat(CanaryPlacement.choose(two, ALL_READY, LeafSet.of(0), p -> p != 0)).isEqualTo(new CanaryPlacement.Choice(1, 1));
    }
}
