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
    void spreadsALostLeafsPartitionsOverTheLeavesOtherThanItsPartner() {
        PartitionAssignment assignment = PartitionAssignment.spread(16, 4, 2);
        Map<Integer, Integer> takeOver = new HashMap<>();
        for (int p : assignment.partitionsOf(0)) {
            for (int leaf : assignment.replicasOf(p)) {
                if (leaf != 0) {
                    takeOver.merge(leaf, 1, Integer::sum);
                }
            }
        }
        assertThat(takeOver).containsOnly(Map.entry(2, 4), Map.entry(3, 4));
    }

    @Test
    void spreadsALostLeafsPartitionsOverSeveralSurvivorsWithAnOddNumberOfLeaves() {
        PartitionAssignment assignment = PartitionAssignment.spread(15, 5, 2);
        Map<Integer, Integer> takeOver = new HashMap<>();
        for (int p : assignment.partitionsOf(0)) {
            for (int leaf : assignment.replicasOf(p)) {
                if (leaf != 0) {
                    takeOver.merge(leaf, 1, Integer::sum);
                }
            }
        }
        assertThat(takeOver.keySet()).hasSizeGreaterThanOrEqualTo(3);
    }

    /** Two leaves a query of death could crash (its canary's and its second opinion's) leave every partition a replica. */
    @Test
    void givesEveryLeafAPartnerSharingNoPartitionWithTwoReplicasOnAnEvenNumberOfLeaves() {
        for (int leaves = 4; leaves <= 12; leaves += 2) {
            for (int partitions : new int[] {16, 17, 64}) {
                PartitionAssignment assignment = PartitionAssignment.spread(partitions, leaves, 2);
                for (int leaf = 0; leaf < leaves; leaf++) {
                    assertThat(assignment.partitionsOf(leaf)).as("%d partitions, %d leaves, leaf %d and its partner",
                            partitions, leaves, leaf).doesNotContain(assignment.partitionsOf(leaf ^ 1));
                    assertThat(assignment.partnerOf(leaf)).isNotEqualTo(-1);
                }
                int[] sizes = java.util.stream.IntStream.range(0, leaves).map(l -> assignment.partitionsOf(l).length).toArray();
                assertThat(Arrays.stream(sizes).max().getAsInt() - Arrays.stream(sizes).min().getAsInt())
                        .as("balance of %d partitions over %d leaves: %s", partitions, leaves, Arrays.toString(sizes))
                        .isLessThanOrEqualTo(2);
            }
        }
        assertThat(PartitionAssignment.spread(16, 3, 2).partnerOf(0)).as("three leaves: every pair shares").isEqualTo(-1);
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
    void placesPartitionsOnThousandsOfLeaves() {
        // Leaves were limited to 64 while sub-requests kept leaves in a long bitmask.
        PartitionAssignment assignment = PartitionAssignment.spread(10_000, 10_000, 2);

        for (int p = 0; p < 10_000; p++) {
            int[] replicas = assignment.replicasOf(p);
            assertThat(replicas).hasSize(2);
            assertThat(replicas[0]).as("partition %d", p).isNotEqualTo(replicas[1]);
        }
        for (int leaf = 0; leaf < 10_000; leaf++) {
            assertThat(assignment.partitionsOf(leaf)).as("leaf %d", leaf).hasSize(2);
        }
    }

    @Test
    void refusesMoreReplicasThanLeaves() {
        assertThatThrownBy(() -> PartitionAssignment.spread(16, 2, 3))
                .hasMessageContaining("replicas: 3 (expected: 1..2");
    }

    @Test
    void countsTheMostReplicasOfAllPartitionsOrOfTheOnesASearchAsks() {
        PartitionAssignment assignment = PartitionAssignment.of(4, new int[][] {{0, 1}, {1, 2, 3}, {2}, {3, 0}});

        assertThat(assignment.mostReplicas()).isEqualTo(3);
        assertThat(assignment.mostReplicas(new int[] {0, 3})).isEqualTo(2);
        assertThat(assignment.mostReplicas(new int[] {2})).isEqualTo(1);
        assertThat(assignment.mostReplicas(new int[] {2, 1})).isEqualTo(3);
    }
}
