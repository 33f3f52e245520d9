package io.hedgerow.root.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The placement over leaf slots, scripted on a manual clock: 8 partitions, 2 copies, spread over the
 * first 2 of 4 slots. A vacant slot gets no copy and is never reported gone; a leaf that fills one
 * takes copies from the fuller leaves, one move at a time, up to its share, and no partition is ever
 * short of its serving copies meanwhile.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeafSlotPlacementTest {
    private static final long S = 1_000_000_000L;
    private static final PartitionAssignment START = PartitionAssignment.spread(8, 2, 2).widened(4);
    private static final PlacementSettings SETTINGS = PlacementSettings.defaults().withGrace(java.time.Duration.ofSeconds(1));

    private final Placement placement = new Placement(START, 2, SETTINGS, 0, false);

    private int held(int leaf) {
        return placement.snapshot().targetOfLeaf()[leaf].length;
    }

    @Test
    void aVacantSlotGetsNoCopyAndIsNeverGoneEvenWhenAnotherLeafIsLost() {
        placement.leafVacant(2);
        placement.leafVacant(3);
        placement.leafLost(1, 0);
        placement.tick(10 * S, null);

        assertThat(placement.report(10 * S).goneLeaves()).containsExactly(1);
        assertThat(placement.report(10 * S).copies()).as("nowhere to re-replicate to: only leaf 0 is live")
                .isEmpty();
        assertThat(held(2)).isZero();
        assertThat(held(3)).isZero();
    }

    @Test
    void aLeafFillingAVacantSlotTakesItsShareOneMoveAtATimeWithNoPartitionShort() {
        placement.leafVacant(2);
        placement.leafVacant(3);
        placement.tick(S, null);
        assertThat(placement.takeChangedLeaves()).isEmpty();

        placement.leafBack(2, 2 * S);
        long now = 2 * S;
        int rounds = 0;
        while (held(2) < 5 || placement.report(now).copies().stream()
                .anyMatch(c -> c.state() != Placement.CopyState.SERVING && c.state() != Placement.CopyState.RETIRING)) {
            now += S / 4;
            placement.tick(now, null);
            PlacementSnapshot snapshot = placement.snapshot();
            for (int p = 0; p < 8; p++) {
                assertThat(snapshot.serving().replicasOf(p)).as("partition %d at %d ms", p, now / 1_000_000)
                        .hasSizeGreaterThanOrEqualTo(2);
            }
            PlacementTest.ackEverything(placement, now);
            assertThat(++rounds).as("rounds to fill leaf 2").isLessThan(100);
        }
        now += SETTINGS.retireDelay().toNanos() + S;
        placement.tick(now, null);

        int[][] serving = new int[8][];
        for (int p = 0; p < 8; p++) {
            serving[p] = placement.snapshot().serving().replicasOf(p);
            assertThat(serving[p]).as("partition %d", p).hasSize(2).doesNotHaveDuplicates();
        }
        assertThat(held(2)).as("its share: 16 copies over 3 leaves").isEqualTo(5);
        assertThat(held(0) + held(1)).isEqualTo(11);
        assertThat(Math.abs(held(0) - held(1))).isLessThanOrEqualTo(1);
        assertThat(held(3)).as("still vacant").isZero();
        assertThat(placement.report(now).rebalanceMoves()).isEqualTo(5);
        assertThat(Arrays.stream(serving).flatMapToInt(Arrays::stream).filter(leaf -> leaf == 3)).isEmpty();
    }
}
