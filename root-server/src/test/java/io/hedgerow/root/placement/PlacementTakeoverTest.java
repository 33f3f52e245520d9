package io.hedgerow.root.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A placement leader taking over from the plan its predecessor stored ({@link PlacementPlan}),
 * scripted on a manual clock: it starts where the plan stands, finishes the copies left opening and
 * starts only those still missing.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlacementTakeoverTest {
    private static final long S = 1_000_000_000L;
    private static final PartitionAssignment START = PartitionAssignment.spread(16, 4, 2);
    private static final PlacementSettings SETTINGS = PlacementSettings.defaults();

    @Test
    void continuesFromTheStoredPlanFinishingItsOpeningCopiesAndStartingOnlyTheMissingOnes() {
        Placement first = new Placement(START, 2, SETTINGS, 0);
        first.leafLost(0, 0);
        first.tick(30 * S, null); // grace over: two copies opening (maxOpening)
        PlacementPlan stored = first.plan();
        assertThat(stored.copies().stream().flatMap(java.util.List::stream)
                .filter(c -> c.state() == Placement.CopyState.OPENING)).hasSize(SETTINGS.maxOpening());

        Placement next = new Placement(stored, 2, SETTINGS, 100 * S, false);
        assertThat(next.plan()).as("taken over as it was").isEqualTo(stored);
        assertSameSnapshot(next.snapshot(), first.snapshot());

        // The successor's own view: leaf 0 lost from now; within its grace nothing new starts...
        next.leafLost(0, 100 * S);
        next.tick(100 * S, null);
        PlacementTest.ackEverything(next, 101 * S);
        next.tick(101 * S, null);
        assertThat(next.report(101 * S).reReplications()).as("none started again").isZero();
        assertThat(next.report(101 * S).copies()).hasSize(SETTINGS.maxOpening())
                .allMatch(c -> c.state() == Placement.CopyState.SERVING);

        // ...and after it, only the partitions still short get copies: 8 on leaf 0, 2 already made.
        long now = 130 * S;
        next.tick(now, null);
        for (int round = 0; next.underReplicated() > 0; round++) {
            assertThat(round).as("rounds to full replication").isLessThan(20);
            now += S / 5;
            PlacementTest.ackEverything(next, now);
            next.tick(now, null);
        }
        assertThat(next.report(now).reReplications()).isEqualTo(START.partitionsOf(0).length - SETTINGS.maxOpening());
        for (int p = 0; p < START.partitions(); p++) {
            assertThat(Arrays.stream(next.snapshot().serving().replicasOf(p)).filter(leaf -> leaf != 0))
                    .as("partition %d", p).hasSize(2);
        }
    }

    @Test
    void aPlanOfTheConfiguredAssignmentIsThatAssignment() {
        PlacementPlan plan = PlacementPlan.of(START);
        assertSameSnapshot(plan.snapshot(), PlacementSnapshot.fixed(START));
        assertThat(new Placement(START, 2, SETTINGS, 0).plan()).isEqualTo(plan);
        for (int p = 0; p < START.partitions(); p++) {
            assertThat(plan.keptCopies(p)).containsExactly(START.replicasOf(p));
        }
    }

    private static void assertSameSnapshot(PlacementSnapshot actual, PlacementSnapshot expected) {
        assertThat(actual.targetOfLeaf()).isDeepEqualTo(expected.targetOfLeaf());
        assertThat(actual.targetVersion()).isEqualTo(expected.targetVersion());
        for (int p = 0; p < expected.serving().partitions(); p++) {
            assertThat(actual.serving().replicasOf(p)).as("partition %d", p)
                    .containsExactly(expected.serving().replicasOf(p));
        }
    }
}
