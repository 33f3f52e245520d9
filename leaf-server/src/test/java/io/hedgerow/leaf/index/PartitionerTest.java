package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PartitionerTest {

    @Test
    void mapsTheSameIdToTheSamePartitionEveryTime() {
        Partitioner first = new Partitioner(16);
        Partitioner second = new Partitioner(16);
        for (int i = 0; i < 1_000; i++) {
            String id = "doc-" + i;
            assertThat(second.partitionOf(id)).isEqualTo(first.partitionOf(id));
        }
    }

    /**
     * Pinned from MurmurHash3 x86-32 (seed 0), cross-checked against an independent implementation.
     * If this fails, the hash changed and every existing index now routes ids to the wrong partition.
     */
    @Test
    void mapsKnownIdsToPinnedPartitions() {
        Partitioner sixteen = new Partitioner(16);
        assertThat(sixteen.partitionOf("1")).isEqualTo(3);
        assertThat(sixteen.partitionOf("2")).isEqualTo(7);
        assertThat(sixteen.partitionOf("17597")).isEqualTo(4);
        assertThat(sixteen.partitionOf("doc-42")).isEqualTo(15);
        assertThat(sixteen.partitionOf("héllo")).isEqualTo(8);

        Partitioner many = new Partitioner(10_000);
        assertThat(many.partitionOf("1")).isEqualTo(6643);
        assertThat(many.partitionOf("doc-42")).isEqualTo(1967);
        assertThat(many.partitionOf("héllo")).isEqualTo(600);
    }

    @Test
    void spreadsTenThousandIdsEvenlyOverSixteenPartitions() {
        Partitioner partitioner = new Partitioner(16);
        int[] counts = new int[16];
        for (int i = 0; i < 10_000; i++) {
            counts[partitioner.partitionOf("doc-" + i)]++;
        }
        double mean = 10_000 / 16.0;
        for (int p = 0; p < 16; p++) {
            assertThat(counts[p]).as("partition %d", p).isPositive().isLessThanOrEqualTo((int) (2 * mean));
        }
    }

    @Test
    void rejectsAPartitionCountOutOfRange() {
        assertThatThrownBy(() -> new Partitioner(0)).hasMessage("partitions: 0 (expected: 1..10000)");
        assertThatThrownBy(() -> new Partitioner(10_001)).hasMessage("partitions: 10001 (expected: 1..10000)");
    }
}
