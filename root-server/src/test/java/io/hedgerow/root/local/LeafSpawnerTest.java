package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The search threads each leaf of a local cluster gets by default: the machine's cores, shared out. */
@Timeout(10)
class LeafSpawnerTest {
    @Test
    void fourLeavesOnTwoCoresRunOneWorkerEach() {
        assertThat(LeafSpawner.workersPerLeaf(2, 4)).isEqualTo(1);
    }

    @Test
    void sharesTheCoresOutRoundingDown() {
        assertThat(LeafSpawner.workersPerLeaf(8, 4)).isEqualTo(2);
        assertThat(LeafSpawner.workersPerLeaf(10, 4)).isEqualTo(2);
        assertThat(LeafSpawner.workersPerLeaf(16, 1)).as("a leaf alone takes every core").isEqualTo(16);
    }

    @Test
    void refusesNonsensicalCountsNamingThem() {
        assertThatThrownBy(() -> LeafSpawner.workersPerLeaf(0, 4))
                .hasMessage("cores: 0, leaves: 4 (expected: both >= 1)");
    }
}
