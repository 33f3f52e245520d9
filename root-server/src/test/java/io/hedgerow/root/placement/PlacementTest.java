package io.hedgerow.root.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.cluster.PartitionAssignment;
import io.hedgerow.root.cluster.PlacementSnapshot;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The placement plan, scripted on a manual clock: every event carries its time. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PlacementTest {
    private static final long S = 1_000_000_000L;
    private static final PartitionAssignment START = PartitionAssignment.spread(16, 4, 2);
    private static final PlacementSettings SETTINGS = PlacementSettings.defaults();

    private final Placement placement = new Placement(START, 2, SETTINGS, 0);

    @Test
    void aRestartWithinTheGraceMovesNothing() {
        placement.leafLost(0, 0);
        placement.tick(10 * S, null);
        placement.tick(29 * S, null);
        placement.leafBack(0, 29 * S);
        placement.tick(40 * S, null);

        assertThat(placement.takeChangedLeaves()).isEmpty();
        assertThat(placement.report(40 * S).copies()).isEmpty();
        assertThat(placement.report(40 * S).lastFullReplicationNanos()).as("back to full by the return").isEqualTo(40 * S);
        assertServing(placement.snapshot(), START);
    }

    @Test
    void reReplicatesAGoneLeafsPartitionsAFewAtATimeAcrossTheSurvivors() {
        placement.leafLost(0, 0);
        placement.tick(29 * S, null);
        assertThat(placement.takeChangedLeaves()).as("within the grace").isEmpty();

        placement.tick(30 * S, null);
        PlacementReport report = placement.report(30 * S);
        assertThat(report.copies()).hasSize(SETTINGS.maxOpening())
                .allSatisfy(copy -> {
                    assertThat(copy.state()).isEqualTo(Placement.CopyState.OPENING);
                    assertThat(copy.reason()).isEqualTo(Placement.Reason.RE_REPLICATION);
                    assertThat(copy.leaf()).isNotZero();
                    assertThat(START.replicasOf(copy.partition())).as("partition %d", copy.partition())
                            .contains(0).doesNotContain(copy.leaf());
                });
        assertThat(report.goneLeaves()).containsExactly(0);
        assertServing(placement.snapshot(), START);

        long now = 30 * S;
        int rounds = 0;
        while (placement.underReplicated() > 0) {
            now += S / 5;
            ackEverything(placement, now);
            placement.tick(now, null);
            assertThat(placement.report(now).copies().stream().filter(c -> c.state() == Placement.CopyState.OPENING))
                    .hasSizeLessThanOrEqualTo(SETTINGS.maxOpening());
            assertThat(++rounds).as("rounds to full replication").isLessThan(20);
        }
        PlacementSnapshot snapshot = placement.snapshot();
        for (int p = 0; p < 16; p++) {
            int[] live = Arrays.stream(snapshot.serving().replicasOf(p)).filter(leaf -> leaf != 0).toArray();
            assertThat(live).as("partition %d on live leaves", p).hasSize(2).doesNotHaveDuplicates();
        }
        Set<Integer> takers = placement.report(now).copies().stream().map(PlacementReport.CopyView::leaf)
                .collect(Collectors.toSet());
        assertThat(takers).as("every survivor takes some").containsExactlyInAnyOrder(1, 2, 3);
        for (int leaf = 1; leaf <= 3; leaf++) {
            assertThat(snapshot.targetOfLeaf()[leaf].length).as("leaf %d", leaf).isBetween(10, 12);
        }
        assertThat(placement.report(now).reReplications()).isEqualTo(8);
        assertThat(placement.report(now).lastFullReplicationNanos()).isEqualTo(now);
    }

    @Test
    void aNewCopyServesOnlyOnceAnAcknowledgementOfItsTargetListsItOpen() {
        placement.leafLost(0, 0);
        placement.tick(30 * S, null);
        PlacementReport.CopyView copy = placement.report(30 * S).copies().getFirst();
        PlacementSnapshot before = placement.snapshot();
        long version = before.targetVersion()[copy.leaf()];

        // An acknowledgement of an older target (another connection's handshake) neither serves nor fails it.
        placement.acked(copy.leaf(), version - 1, Set.of(), 30 * S);
        assertThat(placement.snapshot().serving().replicasOf(copy.partition())).doesNotContain(copy.leaf());
        assertThat(placement.report(30 * S).failed()).isZero();

        placement.acked(copy.leaf(), version, toSet(before.targetOfLeaf()[copy.leaf()]), 31 * S);
        assertThat(placement.snapshot().serving().replicasOf(copy.partition())).contains(copy.leaf());
    }

    @Test
    void aCopyItsLeafCouldNotOpenIsPlacedElsewhere() {
        placement.leafLost(0, 0);
        placement.tick(30 * S, null);
        PlacementReport.CopyView copy = placement.report(30 * S).copies().getFirst();
        long version = placement.snapshot().targetVersion()[copy.leaf()];
        placement.acked(copy.leaf(), version, Set.of(), 31 * S);
        placement.tick(32 * S, null);

        PlacementReport report = placement.report(32 * S);
        assertThat(report.failed()).isEqualTo(1);
        assertThat(report.recent().getLast().outcome()).startsWith("failed");
        assertThat(report.copies()).filteredOn(c -> c.partition() == copy.partition()).singleElement()
                .satisfies(c -> assertThat(c.leaf()).isNotEqualTo(copy.leaf()));
    }

    @Test
    void aCopyNotAcknowledgedInTimeIsGivenUp() {
        placement.leafLost(0, 0);
        placement.tick(30 * S, null);
        placement.tick(60 * S, null);
        assertThat(placement.report(60 * S).failed()).isEqualTo(2);
    }

    @Test
    void aReturningLeafGetsItsPartitionsBackAndTheCopiesMadeMeanwhileRetire() {
        long now = reReplicateLeafZero();
        placement.takeChangedLeaves();

        now += 10 * S;
        placement.leafBack(0, now);
        placement.tick(now, null);
        assertThat(placement.report(now).copies()).hasSize(8)
                .allSatisfy(c -> assertThat(c.state()).isEqualTo(Placement.CopyState.RETIRING));
        assertServing(placement.snapshot(), START);
        assertThat(placement.takeChangedLeaves()).as("retiring copies stay open a moment").isEmpty();

        now += SETTINGS.retireDelay().toNanos();
        placement.tick(now, null);
        assertThat(placement.takeChangedLeaves()).containsExactlyInAnyOrder(1, 2, 3);
        for (int leaf = 0; leaf < 4; leaf++) {
            assertThat(placement.snapshot().targetOfLeaf()[leaf]).as("leaf %d", leaf).containsExactly(START.partitionsOf(leaf));
        }
        assertThat(placement.report(now).retired()).isEqualTo(8);
    }

    @Test
    void withLiveWritesACopyMadeMeanwhileRetiresOnlyOnceTheReturningOneIsInSync() {
        long now = reReplicateLeafZero();
        now += 10 * S;
        placement.leafBack(0, now);
        int behind = START.partitionsOf(0)[0];
        // Leaf 0's copies returned behind the writes; all but one have caught up.
        placement.tick(now, null, (partition, leaf) -> !(partition == behind && leaf == 0));
        assertThat(placement.report(now).copies().stream().filter(c -> c.state() == Placement.CopyState.RETIRING))
                .as("the copies made meanwhile of the partitions in sync again").hasSize(7)
                .noneSatisfy(c -> assertThat(c.partition()).isEqualTo(behind));
        assertThat(placement.snapshot().serving().replicasOf(behind)).as("its copy made meanwhile serves on").hasSize(3);

        now += S;
        placement.tick(now, null, (partition, leaf) -> true);
        assertThat(placement.report(now).retired()).as("caught up: now it retires").isEqualTo(8);
        assertThat(placement.snapshot().serving().replicasOf(behind)).containsExactlyInAnyOrder(START.replicasOf(behind));
    }

    @Test
    void reReplicationOffLeavesAGoneLeafsPartitionsShort() {
        Placement off = new Placement(START, 2, SETTINGS.withReReplication(false), 0);
        off.leafLost(0, 0);
        off.tick(300 * S, null);
        assertThat(off.takeChangedLeaves()).isEmpty();
        assertThat(off.underReplicated()).isEqualTo(8);
    }

    @Test
    void aHotPartitionGetsAnExtraReplicaAndLosesItWhenItCools() {
        Placement selective = new Placement(START, 2, SETTINGS.withSelectiveReplication(true), 0);
        double[] load = new double[16];
        Arrays.fill(load, 10);
        load[5] = 25;
        selective.tick(S, load);
        PlacementReport report = selective.report(S);
        assertThat(report.copies()).singleElement().satisfies(c -> {
            assertThat(c.partition()).isEqualTo(5);
            assertThat(c.reason()).isEqualTo(Placement.Reason.HOT);
            assertThat(c.why()).startsWith("load 2.5x the median");
            assertThat(START.replicasOf(5)).doesNotContain(c.leaf());
        });
        ackEverything(selective, 2 * S);
        selective.tick(2 * S, load);
        assertThat(selective.snapshot().serving().replicasOf(5)).hasSize(3);

        load[5] = 11;
        selective.tick(30 * S, load);
        assertThat(selective.snapshot().serving().replicasOf(5)).as("held for minHold").hasSize(3);
        selective.tick(62 * S, load);
        assertThat(selective.snapshot().serving().replicasOf(5)).as("cooled after the hold").hasSize(2);
        assertThat(selective.report(62 * S).hotCopies()).isEqualTo(1);
    }

    @Test
    void aHotPartitionsExtraCopyGoesToTheLeastLoadedLeafNotTheOneWithFewestCopies() {
        int[] holders = START.replicasOf(5);
        int[] candidates = java.util.stream.IntStream.range(0, 4)
                .filter(leaf -> Arrays.stream(holders).noneMatch(h -> h == leaf)).toArray();
        assertThat(candidates).hasSize(2);
        for (int busy : candidates) {
            int cool = busy == candidates[0] ? candidates[1] : candidates[0];
            Placement selective = new Placement(START, 2, SETTINGS.withSelectiveReplication(true), 0);
            double[] load = new double[16];
            Arrays.fill(load, 10);
            load[5] = 25;
            for (int p : START.partitionsOf(busy)) {
                if (p != 5 && Arrays.stream(START.replicasOf(p)).noneMatch(leaf -> leaf == cool)) {
                    load[p] = 19; // warm, not hot: below twice the median
                }
            }
            selective.tick(S, load);
            assertThat(selective.report(S).copies()).as("leaf %d busy", busy).singleElement()
                    .satisfies(c -> assertThat(c.leaf()).isEqualTo(cool));
        }
    }

    @Test
    void rebalancingMovesAShareFromTheHotLeafAndClosesTheSourceAfterTheTargetServes() {
        Placement balancing = new Placement(START, 2, SETTINGS.withRebalancing(true), 0);
        double[] load = new double[16];
        Arrays.fill(load, 1);
        for (int p : START.partitionsOf(0)) {
            load[p] = 6;
        }
        balancing.tick(S, load);
        PlacementReport.CopyView target = balancing.report(S).copies().getFirst();
        assertThat(target.reason()).isEqualTo(Placement.Reason.REBALANCE);
        assertThat(START.replicasOf(target.partition())).contains(0);
        assertThat(balancing.snapshot().serving().replicasOf(target.partition())).contains(0);

        ackEverything(balancing, 2 * S);
        assertThat(balancing.snapshot().serving().replicasOf(target.partition()))
                .as("traffic switched: the target serves, the source does not").contains(target.leaf()).doesNotContain(0);
        balancing.tick(3 * S, load);
        assertThat(balancing.snapshot().targetOfLeaf()[0]).doesNotContain(target.partition());
        balancing.tick(4 * S, load);
        assertThat(balancing.report(4 * S).rebalanceMoves()).as("one move per cooldown").isEqualTo(1);
    }

    @Test
    void rebalancingMovesNoCopyTheWritePathSaysMayNotMove() {
        Placement balancing = new Placement(START, 2, SETTINGS.withRebalancing(true), 0);
        double[] load = new double[16];
        Arrays.fill(load, 1);
        for (int p : START.partitionsOf(0)) {
            load[p] = 6;
        }
        // Every copy on the hot leaf is its partition's stored primary: nothing there may move.
        balancing.tick(S, load, (partition, leaf) -> true, (partition, leaf) -> leaf != 0);
        assertThat(balancing.report(S).copies()).as("no move off the hot leaf").isEmpty();
        assertThat(balancing.report(S).rebalanceMoves()).isZero();
    }

    @Test
    void withLiveWritesAnOpenedCopyServesOnlyOnceCaughtUp() {
        Placement writes = new Placement(START, 2, SETTINGS, 0, true);
        writes.leafLost(0, 0);
        writes.tick(30 * S, null);
        PlacementReport.CopyView copy = writes.report(30 * S).copies().getFirst();
        assertThat(writes.keptCopies(copy.partition())).as("the write path keeps it in sync from the start")
                .containsExactly(0, START.replicasOf(copy.partition())[1], copy.leaf());

        ackEverything(writes, 31 * S);
        assertThat(writes.snapshot().serving().replicasOf(copy.partition())).as("open, not caught up")
                .doesNotContain(copy.leaf());
        assertThat(writes.catchingUp()).anySatisfy(c -> assertThat(c).containsExactly(copy.partition(), copy.leaf()));
        assertThat(writes.underReplicated()).isEqualTo(8);
        writes.tick(31 * S, null);
        assertThat(writes.report(31 * S).copies().stream().filter(c -> c.state() != Placement.CopyState.SERVING))
                .as("catching up counts against the copies opening at once").hasSize(SETTINGS.maxOpening());

        writes.caughtUp(copy.partition(), copy.leaf(), 32 * S);
        assertThat(writes.snapshot().serving().replicasOf(copy.partition())).contains(copy.leaf());
        assertThat(writes.catchingUp()).noneSatisfy(c -> assertThat(c).containsExactly(copy.partition(), copy.leaf()));
    }

    @Test
    void aCopyNotCaughtUpInTimeIsGivenUpAndOneWhoseLeafIsLostToo() {
        Placement writes = new Placement(START, 2, SETTINGS, 0, true);
        writes.leafLost(0, 0);
        writes.tick(30 * S, null);
        ackEverything(writes, 31 * S);
        assertThat(writes.catchingUp()).hasSize(2);
        int[] lost = writes.catchingUp().getFirst();
        writes.leafLost(lost[1], 32 * S);
        assertThat(writes.report(32 * S).failed()).isEqualTo(1);
        assertThat(writes.report(32 * S).recent().getLast().outcome()).contains("lost while it caught up");

        writes.tick(31 * S + SETTINGS.openTimeout().toNanos(), null);
        assertThat(writes.report(61 * S).failed()).isEqualTo(2);
        assertThat(writes.report(61 * S).recent()).anySatisfy(move -> assertThat(move.outcome())
                .contains("not caught up with the partition's writes"));
    }

    @Test
    void withLiveWritesAMovesSourceRetiresOnlyOnceTheTargetIsCaughtUp() {
        Placement balancing = new Placement(START, 2, SETTINGS.withRebalancing(true), 0, true);
        double[] load = new double[16];
        Arrays.fill(load, 1);
        for (int p : START.partitionsOf(0)) {
            load[p] = 6;
        }
        balancing.tick(S, load);
        PlacementReport.CopyView target = balancing.report(S).copies().getFirst();
        ackEverything(balancing, 2 * S);
        balancing.tick(3 * S, load);
        assertThat(balancing.snapshot().serving().replicasOf(target.partition())).as("the source serves on")
                .contains(0).doesNotContain(target.leaf());
        assertThat(balancing.keptCopies(target.partition())).contains(0, target.leaf());

        balancing.caughtUp(target.partition(), target.leaf(), 4 * S);
        assertThat(balancing.snapshot().serving().replicasOf(target.partition()))
                .contains(target.leaf()).doesNotContain(0);
        assertThat(balancing.keptCopies(target.partition())).as("the retiring source takes no more writes")
                .doesNotContain(0).contains(target.leaf());
    }

    /**
     * A leaf waits for leaf 0's slot: leaf 0's copies, kept in its target for its return, are given up
     * once it is gone and its partitions are served, in sync, by enough live copies without it; not
     * before, not while a survivor is out of sync, not while one of its copies is the write path's
     * primary. Before, nothing ever took a gone leaf's copies out of its target, so its slot never held
     * nothing and could not be reused.
     */
    @Test
    void aGoneLeafsCopiesAreGivenUpOnlyOnceItsPartitionsAreFullyReplicatedAndInSyncWithoutIt() {
        Placement.InSync all = (partition, leaf) -> true;
        placement.leafLost(0, 0);
        placement.tick(S, null);
        assertThat(placement.forgetGoneLeaf(0, S, all, all)).as("within the grace").isFalse();
        placement.tick(30 * S, null);
        assertThat(placement.forgetGoneLeaf(0, 30 * S, all, all)).as("re-replication still under way").isFalse();

        long now = reReplicateLeafZero();
        assertThat(placement.snapshot().targetOfLeaf()[0]).as("kept for its return").isNotEmpty();
        assertThat(placement.forgetGoneLeaf(0, now, (partition, leaf) -> leaf != 1, all))
                .as("a survivor out of sync").isFalse();
        int primaryHere = placement.snapshot().targetOfLeaf()[0][0];
        assertThat(placement.forgetGoneLeaf(0, now, all, (partition, leaf) -> partition != primaryHere))
                .as("its copy of partition %d is the write path's primary", primaryHere).isFalse();
        assertThat(placement.snapshot().targetOfLeaf()[0]).isNotEmpty();

        assertThat(placement.forgetGoneLeaf(0, now, all, all)).isTrue();
        PlacementSnapshot snapshot = placement.snapshot();
        assertThat(snapshot.targetOfLeaf()[0]).as("its slot holds nothing").isEmpty();
        assertThat(snapshot.serving().partitionsOf(0)).isEmpty();
        for (int p = 0; p < 16; p++) {
            assertThat(placement.keptCopies(p)).as("partition %d", p).doesNotContain(0).hasSize(2);
        }
        assertThat(placement.forgetGoneLeaf(0, now, all, all)).as("nothing left to give up").isFalse();
        assertThat(placement.forgetGoneLeaf(1, now, all, all)).as("a live leaf").isFalse();
    }

    /** Leaf 0 lost past its grace and its copies re-replicated and serving elsewhere; the time then. */
    private long reReplicateLeafZero() {
        placement.leafLost(0, 0);
        long now = 30 * S;
        placement.tick(now, null);
        while (placement.underReplicated() > 0) {
            now += S;
            ackEverything(placement, now);
            placement.tick(now, null);
        }
        return now;
    }

    /** Every leaf acknowledges its current target with all of it open. */
    static void ackEverything(Placement placement, long nowNanos) {
        PlacementSnapshot snapshot = placement.snapshot();
        for (int leaf = 0; leaf < snapshot.targetOfLeaf().length; leaf++) {
            placement.acked(leaf, snapshot.targetVersion()[leaf], toSet(snapshot.targetOfLeaf()[leaf]), nowNanos);
        }
    }

    private static Set<Integer> toSet(int[] values) {
        return IntStream.of(values).boxed().collect(Collectors.toCollection(HashSet::new));
    }

    private static void assertServing(PlacementSnapshot snapshot, PartitionAssignment expected) {
        for (int p = 0; p < expected.partitions(); p++) {
            assertThat(snapshot.serving().replicasOf(p)).as("partition %d", p).containsExactly(expected.replicasOf(p));
        }
    }

    @SuppressWarnings("unused")
    private static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
