package io.hedgerow.root.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionAssignmentTest {

    @Test
    void placesEveryReplicaOfAPartitionOnADistinctLeaf() {
        for (int leaves = 1; leaves <= 9; leaves++) {
            for (int replicas = 1; replicas <= leaves; replicas++) {
                PartitionAssignment assignment = PartitionAssignment.spread(37, leaves, replicas);
                for (int p = 0; p < 37; p++) {
                    assertThat(Arrays.stream(assignment.replicasOf(p)).distinct().count())
                            .as("partition %d with %d leaves, %d replicas", p, leaves, replicas)
                            .isEqualTo(replicas);
                }
            }
        }
    }

    @Test
    void givesEveryLeafTheSameNumberOfPartitionsWhenTheyDivideEvenly() {
        PartitionAssignment assignment = PartitionAssignment.spread(16, 4, 2);
        for (int leaf = 0; leaf < 4; leaf++) {
            assertThat(assignment.partitionsOf(leaf)).hasSize(8);
        }
    }

    @Test
    void spreadsALostLeafsPartitionsOverSeveralSurvivors() {
        PartitionAssignment assignment = PartitionAssignment.spread(16, 4, 2);
        Map<Integer, Integer> takeOver = new HashMap<>();
        for (int p : assignment.partitionsOf(0)) {
            for (int leaf : assignment.replicasOf(p)) {
                if (leaf != 0) {
                    takeOver.merge(leaf, 1, Integer::sum);
                }
            }
        }
        assertThat(takeOver).containsOnlyKeys(1, 2, 3);
        assertThat(takeOver.values()).allSatisfy(count -> assertThat(count).isBetween(2, 3));
    }

    @Test
    void listsPartitionsOfALeafConsistentlyWithReplicasOfAPartition() {
        PartitionAssignment assignment = PartitionAssignment.spread(16, 4, 2);
        for (int leaf = 0; leaf < 4; leaf++) {
            for (int p : assignment.partitionsOf(leaf)) {
                assertThat(assignment.replicasOf(p)).contains(leaf);
            }
        }
    }

    @Test
    void refusesMoreReplicasThanLeaves() {
        assertThatThrownBy(() -> PartitionAssignment.spread(16, 2, 3))
                .hasMessageContaining("replicas: 3 (expected: 1..2");
    }
}
