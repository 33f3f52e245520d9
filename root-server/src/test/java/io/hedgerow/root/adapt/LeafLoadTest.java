package io.hedgerow.root.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** C3's statistics of one leaf, its rank, and the stall rule, on a scripted clock. */
class LeafLoadTest {
    private static final long MS = 1_000_000L;
    private static final StallRule RULE = new StallRule(8, 20 * MS);

    @Test
    void keepsEwmasOfResponseServiceAndQueueAsElasticsearchDoes() {
        LeafLoad load = new LeafLoad();
        load.searched(0, 10 * MS, 4 * MS, 2);
        assertThat(load.responseNanos()).isEqualTo(10.0 * MS); // the first sample is the average
        load.searched(1, 20 * MS, 4 * MS, 12);
        assertThat(load.responseNanos()).isCloseTo(13.0 * MS, within(1.0)); // 10 + 0.3 x (20 - 10)
        assertThat(load.serviceNanos()).isCloseTo(4.0 * MS, within(1.0));
        assertThat(load.queueLength()).isCloseTo(5.0, within(1e-9)); // 2 + 0.3 x 10
        assertThat(load.samples()).isEqualTo(2);
    }

    @Test
    void ranksAsC3() {
        // R 5 ms, 1/mu 2 ms, Q 1, outstanding 1 from 2 clients: q = 1 + 2 + 1 = 4; 5 - 2 + 64 x 2 = 131.
        assertThat(ReplicaRank.rank(5 * MS, 2 * MS, 1, 1, 2)).isCloseTo(131.0, within(1e-9));
        // An idle leaf: q = 1; rank = R.
        assertThat(ReplicaRank.rank(5 * MS, 2 * MS, 0, 0, 2)).isCloseTo(5.0, within(1e-9));
        // A slower but empty leaf beats a faster one with a queue: the cube.
        assertThat(ReplicaRank.rank(10 * MS, 4 * MS, 0, 0, 1)).isLessThan(ReplicaRank.rank(3 * MS, 1 * MS, 3, 0, 1));
    }

    @Test
    void aLeafIsStalledOnlyWhileItOwesAnswersAndHasBeenSilentTooLong() {
        LeafLoad load = new LeafLoad();
        load.sent(0, 0);
        load.searched(1 * MS, 4 * MS, 3 * MS, 0); // usual latency 4 ms: threshold max(20, 32) = 32 ms
        assertThat(RULE.thresholdNanos(load.responseNanos())).isEqualTo(32 * MS);
        load.sent(10 * MS, 0); // the silence counts from here, not from the last answer
        assertThat(load.stalled(RULE, 1, 42 * MS)).isFalse();
        assertThat(load.stalled(RULE, 1, 42 * MS + 1)).isTrue();
        assertThat(load.stalled(RULE, 0, 500 * MS)).as("owes nothing: idle, not stalled").isFalse();
        load.heard(50 * MS); // any answer, a cancel's included, ends it
        assertThat(load.stalled(RULE, 1, 60 * MS)).isFalse();
        assertThat(load.stalled(null, 1, 10_000 * MS)).as("stall detection off").isFalse();
    }

    @Test
    void unknownLatencyUsesTheFloor() {
        LeafLoad load = new LeafLoad();
        load.sent(0, 0);
        assertThat(load.stalled(RULE, 3, 20 * MS)).isFalse();
        assertThat(load.stalled(RULE, 3, 20 * MS + 1)).isTrue();
    }
}
