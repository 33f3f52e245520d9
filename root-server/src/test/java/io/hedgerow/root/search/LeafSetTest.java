package io.hedgerow.root.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LeafSetTest {

    @Test
    void keepsLeaf64ApartFromLeaf0() {
        // A long bitmask took 1L << 64 for 1L: leaf 64 was leaf 0.
        LeafSet set = LeafSet.EMPTY.with(64);

        assertThat(set.contains(64)).isTrue();
        assertThat(set.contains(0)).isFalse();
        assertThat(set.with(0).size()).isEqualTo(2);
        assertThat(LeafSet.of(9_999).contains(9_999)).isTrue();
    }

    @Test
    void countsALeafOnceAndComparesAsASet() {
        LeafSet set = LeafSet.of(3, 1, 3);

        assertThat(set.size()).isEqualTo(2);
        assertThat(set.with(1)).isSameAs(set);
        assertThat(set).isEqualTo(LeafSet.of(1, 3)).hasSameHashCodeAs(LeafSet.of(1, 3));
        assertThat(set.union(LeafSet.of(7))).isEqualTo(LeafSet.of(1, 3, 7));
        assertThat(set).hasToString("[1, 3]");
        assertThat(LeafSet.EMPTY.isEmpty()).isTrue();
    }

    @Test
    void refusesANegativeLeaf() {
        assertThatThrownBy(() -> LeafSet.of(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaf: -1 (expected: >= 0)");
    }
}
