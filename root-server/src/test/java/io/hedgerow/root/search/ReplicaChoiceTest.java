package io.hedgerow.root.search;

import io.hedgerow.root.fanout.DetachedRoot;
import io.hedgerow.root.fanout.DetachedRootScript;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.adapt.LeafLoad;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The root's replica choice: exactly, on scripted views; and through the real request path
 * ({@link DetachedRoot}) on a manual clock, for the leaf that is paused while its calls are hedged away.
 */
class ReplicaChoiceTest {
    private static final long MS = 1_000_000L;
    private static final RandomGenerator FIRST_TWO = new RandomGenerator() {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public int nextInt(int bound) {
            return 0; // picks candidates 0 and then 1 (the second draw skips the first)
        }
    };

    /** A view of a few leaves: ready, with the outstanding calls, loads, stalls and probation a test sets. */
    private static final class View implements DispatchPolicy.ReplicaView {
        final int[] outstanding;
        final LeafLoad[] loads;
        final boolean[] stalled;
        final boolean[] probation;
        /** Stale replicas of partition 0 (those of other partitions are in sync). */
        final boolean[] staleInPartition0;
        final double[] share;

        View(int leaves) {
            staleInPartition0 = new boolean[leaves];
            outstanding = new int[leaves];
            loads = new LeafLoad[leaves];
            stalled = new boolean[leaves];
            probation = new boolean[leaves];
            share = new double[leaves];
            java.util.Arrays.fill(share, 1);
            for (int leaf = 0; leaf < leaves; leaf++) {
                loads[leaf] = new LeafLoad();
            }
        }

        View measured(int leaf, long responseMillis, long serviceMillis, int queue) {
            loads[leaf].searched(0, responseMillis * MS, serviceMillis * MS, queue);
            return this;
        }

        @Override
        public boolean isReady(int leaf) {
            return true;
        }

        @Override
        public int outstanding(int leaf) {
            return outstanding[leaf];
        }

        @Override
        public LeafLoad load(int leaf) {
            return loads[leaf];
        }

        @Override
        public boolean stalled(int leaf) {
            return stalled[leaf];
        }

        @Override
        public boolean onProbation(int leaf) {
            return probation[leaf];
        }

        @Override
        public boolean stale(int partition, int leaf) {
            return partition == 0 && staleInPartition0[leaf];
        }

        @Override
        public double share(int leaf) {
            return share[leaf];
        }
    }

    /** The two choices of {@link #FIRST_TWO}, then {@code draw} for every share's draw. */
    private static RandomGenerator drawing(double draw) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public int nextInt(int bound) {
                return 0;
            }

            @Override
            public double nextDouble() {
                return draw;
            }
        };
    }

    private final DispatchPolicy c3 = new ReplicaChoice(true, 2);

    private int choose(DispatchPolicy policy, View view, int... replicas) {
        return policy.chooseReplica(0, replicas, view, LeafSet.EMPTY, FIRST_TWO);
    }

    @Test
    void prefersTheLeafC3RanksBetterEvenWhenItIsNotPreferred() {
        // Leaf 0: R 10 ms, 1/mu 8 ms, Q 2: q = 3, rank 10 - 8 + 27 x 8 = 218. Leaf 1: R 4, 1/mu 3, Q 0: 1 - ... = 4.
        View view = new View(2).measured(0, 10, 8, 2).measured(1, 4, 3, 0);
        assertThat(choose(c3, view, 0, 1)).isEqualTo(1);
        // One outstanding call to leaf 1 from each of 2 clients: q = 3 for it, rank 4 - 3 + 27 x 3 = 82; still better.
        view.outstanding[1] = 1;
        assertThat(choose(c3, view, 0, 1)).isEqualTo(1);
        // Three: q = 7, rank 1 + 343 x 3 = 1030 > 218: the queue cubed sends work back to leaf 0.
        view.outstanding[1] = 3;
        assertThat(choose(c3, view, 0, 1)).isEqualTo(0);
    }

    /**
     * At light load (nothing outstanding) a leaf once measured slower is passed over, and, answering
     * nothing, would never be measured again. Each time, its load moves halfway toward the winner's
     * by one EWMA step, so the winner's next answer slower than its average gives it work again.
     */
    @Test
    void aReplicaPassedOverAtLightLoadIsTriedAgain() {
        View view = new View(2).measured(0, 10, 8, 2).measured(1, 4, 3, 0);
        for (int i = 0; i < 30; i++) {
            assertThat(choose(c3, view, 0, 1)).isEqualTo(1);
        }
        assertThat(view.loads[1].responseNanos()).as("the winner's load is left alone").isEqualTo(4.0 * MS);
        assertThat(view.loads[0].responseNanos()).as("nudged toward the winner's").isCloseTo(4.0 * MS, within(0.1 * MS));

        view.measured(1, 5, 3, 0); // one answer a millisecond slower than its average

        assertThat(choose(c3, view, 0, 1)).isEqualTo(0);
    }

    @Test
    void aLeafNotMeasuredYetIsComparedByOutstandingCalls() {
        View view = new View(2).measured(1, 1, 1, 0);
        assertThat(choose(c3, view, 0, 1)).as("ties to the preferred replica").isEqualTo(0);
        view.outstanding[0] = 1;
        assertThat(choose(c3, view, 0, 1)).isEqualTo(1);
    }

    @Test
    void comparesTwoRandomReplicasWhenThereAreMore() {
        View view = new View(3).measured(0, 9, 3, 0).measured(1, 6, 3, 0).measured(2, 1, 1, 0);
        // The two drawn are candidates 0 and 1: leaf 2, the best of all, is not among them.
        assertThat(choose(c3, view, 0, 1, 2)).isEqualTo(1);
        RandomGenerator lastTwo = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public int nextInt(int bound) {
                return bound - 1; // candidate 2, then 1
            }
        };
        assertThat(c3.chooseReplica(0, new int[] {0, 1, 2}, view, LeafSet.EMPTY, lastTwo)).isEqualTo(2);
    }

    @Test
    void aLeafInSlowStartKeepsTheChoicesItWinsOnlyWithTheProbabilityOfItsShare() {
        View view = new View(2).measured(0, 1, 1, 0).measured(1, 9, 9, 4); // leaf 0 wins on rank
        view.outstanding[1] = 1; // and on outstanding calls
        view.share[0] = 0.3;
        for (DispatchPolicy policy : List.of(c3, DispatchPolicy.leastOutstanding())) {
            assertThat(policy.chooseReplica(0, new int[] {0, 1}, view, LeafSet.EMPTY, drawing(0.29)))
                    .as("a draw under its share").isEqualTo(0);
            assertThat(policy.chooseReplica(0, new int[] {0, 1}, view, LeafSet.EMPTY, drawing(0.3)))
                    .as("a draw at its share: the runner-up").isEqualTo(1);
            assertThat(policy.chooseReplica(0, new int[] {0, 1}, view, LeafSet.of(1), drawing(0.9)))
                    .as("the only replica left keeps the partition served").isEqualTo(0);
        }
        view.share[1] = 0.2;
        assertThat(c3.chooseReplica(0, new int[] {0, 1}, view, LeafSet.EMPTY, drawing(0.9)))
                .as("the runner-up in a slower start gets nothing from it").isEqualTo(0);
    }

    @Test
    void choosesProbationLeavesAndThenStalledOnesOnlyAsALastResort() {
        View view = new View(3);
        view.stalled[0] = true;
        view.probation[1] = true;
        assertThat(choose(c3, view, 0, 1, 2)).isEqualTo(2);
        assertThat(choose(DispatchPolicy.leastOutstanding(), view, 0, 1, 2)).isEqualTo(2);
        view.outstanding[2] = 5;
        assertThat(choose(DispatchPolicy.leastOutstanding(), view, 0, 1, 2)).as("busy, but in rotation").isEqualTo(2);
        assertThat(c3.chooseReplica(0, new int[] {0, 1, 2}, view, LeafSet.of(2), FIRST_TWO))
                .as("the partition is still served: by the leaf on probation").isEqualTo(1);
        assertThat(c3.chooseReplica(0, new int[] {0, 1, 2}, view, LeafSet.of(1, 2), FIRST_TWO))
                .as("the stalled leaf, only when nothing else is left").isEqualTo(0);
    }

    /**
     * A replica that missed acknowledged writes is read after every other, even a stalled one, and
     * only for the partition it is stale in.
     */
    @Test
    void readsAReplicaThatMissedWritesOnlyWhenThePartitionHasNoOther() {
        View view = new View(2).measured(0, 1, 1, 0).measured(1, 9, 9, 4);
        view.staleInPartition0[0] = true;
        for (DispatchPolicy policy : List.of(c3, DispatchPolicy.leastOutstanding())) {
            assertThat(choose(policy, view, 0, 1)).as("the faster leaf is stale in partition 0").isEqualTo(1);
            view.stalled[1] = true;
            assertThat(choose(policy, view, 0, 1)).as("stalled, but not stale").isEqualTo(1);
            view.stalled[1] = false;
            assertThat(policy.chooseReplica(1, new int[] {0, 1}, view, LeafSet.EMPTY, FIRST_TWO))
                    .as("in sync in partition 1").isEqualTo(0);
            assertThat(policy.chooseReplica(0, new int[] {0, 1}, view, LeafSet.of(1), FIRST_TWO))
                    .as("the partition is still served when its other replica is excluded").isEqualTo(0);
        }
    }

    /** The request path on a manual clock: 2 leaves, 2 partitions (p0: 0,1  p1: 1,0), hedged after 3 ms. */
    private static DetachedRootScript script(AdaptationSettings adaptation) {
        return new DetachedRootScript(DetachedRootScript.config(2, adaptation));
    }

    /** A search whose random draws are the same every time. */
    private static DetachedRoot.Search search(DetachedRootScript script) {
        return script.search(new SplittableRandom(1));
    }

    @Test
    void aPausedLeafWhoseCallsWereAllHedgedAwayIsNotChosen() {
        DetachedRootScript script = script(AdaptationSettings.defaults());
        DetachedRoot.Search first = search(script);
        DetachedRoot.Copy p0 = script.last(0);
        DetachedRoot.Copy p1 = script.last(1);
        assertThat(p0.leaf()).isZero();
        assertThat(p1.leaf()).isEqualTo(1);
        script.at(1);
        script.answer(p1, Status.OK, MS);
        script.at(3); // leaf 0 is paused: at the hedge delay p0 gets a backup on leaf 1
        first.timer(script.ticker.nanoTime());
        DetachedRoot.Copy backup = script.last(0);
        assertThat(backup.leaf()).isEqualTo(1);
        script.at(4);
        script.answer(backup, Status.OK, MS); // the search ends and cancels p0's copy on leaf 0
        assertThat(script.root.outstanding(0)).as("cancelled, but leaf 0 has not answered: still owed").isOne();
        assertThat(script.root.outstanding(1)).isZero();

        script.at(25); // leaf 0 silent for 25 ms with a call owed: past the 20 ms floor
        search(script);
        assertThat(script.last(0).leaf()).as("p0 avoids the stalled leaf").isEqualTo(1);
        assertThat(script.last(1).leaf()).isEqualTo(1);

        script.answer(p0, Status.CANCELLED, MS); // the leaf resumes and answers the cancel: no longer stalled
        assertThat(script.root.outstanding(0)).isZero();
        search(script);
        assertThat(script.last(0).leaf()).as("idle again, and preferred").isZero();
    }

    @Test
    void withoutStallDetectionThePausedLeafIsStillAvoidedForTheCallsItOwes() {
        // Least outstanding alone: the owed cancelled call keeps leaf 0 from looking idle.
        DetachedRootScript script = script(AdaptationSettings.off());
        DetachedRoot.Search first = search(script);
        DetachedRoot.Copy p1 = script.last(1);
        script.at(1);
        script.answer(p1, Status.OK, MS);
        script.at(3);
        first.timer(script.ticker.nanoTime());
        script.at(4);
        script.answer(script.last(0), Status.OK, MS);
        script.at(25);
        search(script);
        assertThat(script.last(0).leaf()).isEqualTo(1);
    }

    @Test
    void aSearchsSecondChoiceCountsItsFirstInC3sRank() {
        DetachedRootScript script = script(AdaptationSettings.defaults().withStallDetection(false).withProbation(false));
        search(script);
        DetachedRoot.Copy p0 = script.last(0);
        DetachedRoot.Copy p1 = script.last(1);
        assertThat(p0.leaf()).isZero();
        assertThat(p1.leaf()).isEqualTo(1);
        script.ticker.advance(Duration.ofNanos(MS));
        script.answer(p0, Status.OK, MS); // leaf 0: 1 ms
        script.ticker.advance(Duration.ofNanos(MS / 5));
        script.answer(p1, Status.OK, MS); // leaf 1: 1.2 ms, almost as good

        script.ticker.advance(Duration.ofMillis(10));
        search(script);
        assertThat(script.last(0).leaf()).as("partition 0 to the best leaf").isZero();
        assertThat(script.last(1).leaf()).as("partition 1: leaf 0 with partition 0's copy ranks below leaf 1")
                .isEqualTo(1);
    }
}
