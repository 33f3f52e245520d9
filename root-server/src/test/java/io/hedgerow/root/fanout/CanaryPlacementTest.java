package io.hedgerow.root.fanout;

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
        // 6 leaves, 6 partitions, partition p on leaves p and p+1: leaf 0 holds 0 and 5.
        PartitionAssignment assignment = PartitionAssignment.spread(6, 6, 2);

        CanaryPlacement.Choice choice = CanaryPlacement.choose(assignment, ALL_READY, 1L, p -> p != 0);

        assertThat(choice).as("leaf 2 holds partitions 1 and 2, neither on leaf 0")
                .isEqualTo(new CanaryPlacement.Choice(1, 2));
    }

    @Test
    void otherwiseAPartitionWhoseOtherReplicaIsNotOnTheCanarysLeaf() {
        // 4 leaves, 8 partitions: every pair of leaves shares a partition.
        PartitionAssignment assignment = PartitionAssignment.spread(8, 4, 2);

        CanaryPlacement.Choice choice = CanaryPlacement.choose(assignment, ALL_READY, 1L << 2, p -> p != 2);

        assertThat(choice).isEqualTo(new CanaryPlacement.Choice(0, 1));
        assertThat(assignment.replicasOf(0)).containsExactly(0, 1);
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

        assertThat(CanaryPlacement.choose(assignment, onlyLeaf3, 1L << 2, p -> p != 2))
                .isEqualTo(new CanaryPlacement.Choice(3, 3));
        assertThat(CanaryPlacement.choose(assignment, onlyLeaf3, 1L << 3, p -> true)).isNull();
        // Two leaves holding every partition: the second opinion still goes, on any partition.
        PartitionAssignment two = PartitionAssignment.spread(4, 2, 2);
        assertThat(CanaryPlacement.choose(two, ALL_READY, 1L, p -> p != 0)).isEqualTo(new CanaryPlacement.Choice(1, 1));
    }
}
