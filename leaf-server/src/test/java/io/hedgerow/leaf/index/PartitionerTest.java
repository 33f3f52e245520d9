package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
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
    void placesAKeysDocumentsInItsConsecutivePartitionsAndSpreadsThemOverThose() {
        Partitioner routed = new Partitioner(16, new Routing("lang", 4));
        int[] german = routed.partitionsOf("de");

        assertThat(german).hasSize(4);
        for (int i = 1; i < german.length; i++) {
            assertThat(german[i]).isEqualTo((german[i - 1] + 1) % 16);
        }
        assertThat(german[0]).isEqualTo(new Partitioner(16).partitionOf("de")).as("the key hashes as an id does");
        int[] counts = new int[16];
        for (int i = 0; i < 1_000; i++) {
            counts[routed.partitionOf("doc-" + i, "de")]++;
        }
        for (int p = 0; p < 16; p++) {
            int partition = p;
            boolean ofKey = Arrays.stream(german).anyMatch(g -> g == partition);
            assertThat(counts[p]).as("partition %d", p).matches(c -> ofKey ? c > 150 : c == 0);
        }
        assertThat(routed.partitionOf("doc-7", "de")).isEqualTo(routed.partitionOf("doc-7", "de"));
    }

    @Test
    void aRoutedIndexNeedsTheRoutingValueAndAPlainOneIgnoresIt() {
        Partitioner routed = new Partitioner(16, new Routing("lang", 2));
        Partitioner plain = new Partitioner(16);

        assertThatThrownBy(() -> routed.partitionOf("doc-1", null)).hasMessageContaining("missing the routing value")
                .hasMessageContaining("'lang'");
        assertThatThrownBy(() -> routed.partitionOf("doc-1")).isInstanceOf(IllegalStateException.class);
        assertThat(plain.partitionOf("doc-42", "de")).isEqualTo(plain.partitionOf("doc-42")).isEqualTo(15);
        assertThatThrownBy(() -> new Partitioner(4, new Routing("lang", 5)))
                .hasMessage("routing: 5 partitions per key (expected: at most the index's 4)");
        assertThat(Routing.parse("lang:3")).isEqualTo(new Routing("lang", 3));
        assertThat(Routing.parse("lang")).isEqualTo(new Routing("lang", 1));
        assertThatThrownBy(() -> Routing.parse("lang:x")).hasMessageContaining("expected: FIELD or FIELD:N");
        assertThatThrownBy(() -> Routing.parse("id:2")).hasMessageContaining("not 'id'");
    }

    @Test
    void rejectsAPartitionCountOutOfRange() {
        assertThatThrownBy(() -> new Partitioner(0)).hasMessage("partitions: 0 (expected: 1..10000)");
        assertThatThrownBy(() -> new Partitioner(10_001)).hasMessage("partitions: 10001 (expected: 1..10000)");
    }
}
