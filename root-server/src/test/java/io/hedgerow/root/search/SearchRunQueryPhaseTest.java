package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.BACKUP;
import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.MS;
import static io.hedgerow.root.search.RunScript.cancels;
import static io.hedgerow.root.search.RunScript.failure;
import static io.hedgerow.root.search.RunScript.finished;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static io.hedgerow.root.search.RunScript.wires;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.api.TotalHits;
import io.hedgerow.common.wire.proto.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The query phase of a {@link SearchRun}, scripted on a manual clock: the fan-out, backups that
 * win and lose, a second hedge round, the budget, retries, lost connections, the cutoff, the
 * deadline, answers cut short. Partition p's replicas are listed in {@link RunScript}.
 */
class SearchRunQueryPhaseTest {

    /** Answers every copy in {@code copies} but those of {@code partitionsLeftOut}. */
    private static List<Action> answerAllBut(RunScript script, List<SearchCopy> copies, int... partitionsLeftOut) {
        List<Action> last = List.of();
        for (SearchCopy copy : copies) {
            if (java.util.Arrays.stream(partitionsLeftOut).noneMatch(p -> p == copy.partition())) {
                last = script.ok(copy);
            }
        }
        return last;
    }

    @Test
    void fansOutOnePrimaryPerPartitionWithALeafBudgetShorterThanTheRoots() {
        RunScript script = RunScript.standard();

        List<Action> start = script.start(query());

        assertThat(searches(start)).hasSize(8).allSatisfy(copy -> {
            assertThat(copy.kind()).isEqualTo(Kind.PRIMARY);
            assertThat(copy.priority()).isEqualTo(INTERACTIVE);
            assertThat(copy.leaf()).as("first replica of partition %d", copy.partition()).isEqualTo(copy.partition() % 4);
        });
        // 1 s to the deadline: the leaves get 950 ms, so an answer cut short at theirs still arrives.
        assertThat(wires(start)).allSatisfy(wire -> assertThat(wire.getBudgetNanos()).isEqualTo(950 * MS));
        assertThat(script.timerAtMillis()).as("the hedge timer").isEqualTo(3.0);
        assertThat(script.counter("hedgerow.subrequests.needed", "phase", "query")).isEqualTo(8);

        List<Action> end = answerAllBut(script.at(1), searches(start));

        SearchResult result = result(end);
        assertThat(result.tainted()).isFalse();
        assertThat(result.totalHits()).isEqualTo(new TotalHits(16, TotalHits.Relation.EQUAL_TO));
        assertThat(result.hits()).extracting(io.hedgerow.api.Hit::id)
                .containsExactly("p7-0", "p6-0", "p5-0", "p4-0", "p3-0");
        assertThat(cancels(end)).isEmpty();
        assertThat(script.timerAtMillis()).as("no timer once finished").isNull();
    }

    @Test
    void atTheHedgeDelayAPartitionStillOutGetsABackupThatWinsAndCancelsThePrimary() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);

        // At t=3 ms the hedge timer fires: a backup of partition 2 to leaf 1, at BACKUP.
        List<Action> hedge = script.at(3).fire();
        SearchCopy backup = sent(hedge, 2, 1, Kind.BACKUP, BACKUP);
        assertThat(searches(hedge)).hasSize(1);
        assertThat(script.timerAtMillis()).as("next: the cutoff").isEqualTo(20.0);

        // At t=4 ms the backup answers: the primary on leaf 2 is cancelled, the search is done.
        List<Action> end = script.at(4).ok(backup);
        SearchCopy primary = primaries.get(2);
        assertThat(cancels(end)).containsExactly(primary);
        SearchResult result = result(end);
        assertThat(result.tainted()).isFalse();
        assertThat(result.trace()).filteredOn(t -> t.partition() == 2).extracting(SubRequestTrace::kind,
                        SubRequestTrace::used, SubRequestTrace::cancelled)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Kind.PRIMARY, false, true),
                        org.assertj.core.groups.Tuple.tuple(Kind.BACKUP, true, false));
        assertThat(script.counter("hedgerow.hedge.backups.won")).isEqualTo(1);
        assertThat(script.subRequests(Kind.BACKUP)).isEqualTo(1);
    }

    @Test
    void aBackupThatLosesIsCancelledWhenThePrimaryAnswers() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);
        SearchCopy backup = sent(script.at(3).fire(), 2, 1, Kind.BACKUP, BACKUP);

        List<Action> end = script.at(3.5).ok(primaries.get(2));

        assertThat(cancels(end)).containsExactly(backup);
        assertThat(result(end).tainted()).isFalse();
        assertThat(script.counter("hedgerow.hedge.backups.won")).isZero();
    }

    @Test
    void withAThirdReplicaASecondHedgeRoundSendsAThirdCopy() {
        RunScript script = new RunScript(4, 8, 3, RunScript.hedge(), RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2); // partition 2 lives on leaves 2, 3 and 0

        SearchCopy first = sent(script.at(3).fire(), 2, 3, Kind.BACKUP, BACKUP);
        assertThat(script.timerAtMillis()).as("the second round, a hedge delay later").isEqualTo(6.0);
        // At t=6 ms both copies are still out: a third, on leaf 0.
        SearchCopy second = sent(script.at(6).fire(), 2, 0, Kind.BACKUP, BACKUP);
        assertThat(script.timerAtMillis()).as("no third round").isEqualTo(20.0);

        List<Action> end = script.at(7).ok(second);
        assertThat(cancels(end)).containsExactlyInAnyOrder(primaries.get(2), first);
        assertThat(result(end).tainted()).isFalse();
    }

    @Test
    void aHotPartitionsThirdCopyGetsASecondHedgeRoundWhereTwoCopyPartitionsGetOne() {
        // Two replicas configured; partition 2 has gained a third copy on leaf 0 (selective replication).
        RunScript script = RunScript.standard().serving(2, 2, 1, 0);
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2, 5); // partition 5 lives on leaves 1 and 3

        List<Action> first = script.at(3).fire();
        SearchCopy backupOf2 = sent(first, 2, 1, Kind.BACKUP, BACKUP);
        SearchCopy backupOf5 = sent(first, 5, 3, Kind.BACKUP, BACKUP);
        assertThat(script.timerAtMillis()).as("a second round, a hedge delay later").isEqualTo(6.0);

        // At t=6 ms both partitions still wait on two copies: only partition 2 has a third replica.
        List<Action> second = script.at(6).fire();
        SearchCopy thirdOf2 = sent(second, 2, 0, Kind.BACKUP, BACKUP);
        assertThat(searches(second)).as("partition 5 has no replica left to ask").hasSize(1);
        assertThat(script.timerAtMillis()).as("no third round: next, the cutoff").isEqualTo(20.0);

        script.at(7).ok(backupOf5);
        List<Action> end = script.at(8).ok(thirdOf2);
        assertThat(cancels(end)).containsExactlyInAnyOrder(primaries.get(2), backupOf2);
        assertThat(result(end).tainted()).isFalse();
        assertThat(script.subRequests(Kind.BACKUP)).isEqualTo(3);
    }

    @Test
    void aPartitionWithFourCopiesGetsAHedgeRoundPerCopyBeyondTheFirst() {
        RunScript script = RunScript.standard().serving(2, 2, 1, 0, 3);
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);

        SearchCopy first = sent(script.at(3).fire(), 2, 1, Kind.BACKUP, BACKUP);
        SearchCopy second = sent(script.at(6).fire(), 2, 0, Kind.BACKUP, BACKUP);
        assertThat(script.timerAtMillis()).as("a third round").isEqualTo(9.0);
        SearchCopy third = sent(script.at(9).fire(), 2, 3, Kind.BACKUP, BACKUP);
        assertThat(script.timerAtMillis()).as("every replica asked: next, the cutoff").isEqualTo(20.0);

        List<Action> end = script.at(10).ok(third);
        assertThat(cancels(end)).containsExactlyInAnyOrder(primaries.get(2), first, second);
        assertThat(script.subRequests(Kind.BACKUP)).isEqualTo(3);
    }

    @Test
    void aHedgeRoundForAThirdCopyStillNeedsTheBudget() {
        RunScript script = RunScript.standard().serving(2, 2, 1, 0);
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);
        sent(script.at(3).fire(), 2, 1, Kind.BACKUP, BACKUP);
        while (script.budget().tryBackup()) {
            // spend what is left of the budget (10 a second, with no primaries yet in its window)
        }

        List<Action> second = script.at(6).fire();

        assertThat(searches(second)).as("the budget refuses the third copy").isEmpty();
        assertThat(script.counter("hedgerow.hedge.budget.refusals")).isEqualTo(1);
    }

    @Test
    void aSpentBudgetSendsNoBackupAndCountsTheRefusal() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge().withBudgetRatio(0).withBudgetMinPerSecond(0),
                RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2, 5);

        List<Action> hedge = script.at(3).fire();

        assertThat(searches(hedge)).isEmpty();
        assertThat(script.counter("hedgerow.hedge.budget.refusals")).isEqualTo(2);
    }

    @Test
    void aBackupTheBudgetRefusedIsTriedAgainAtDoublingWaitsAndSentOnceTheBudgetHasRoom() {
        // 5% of the primaries, no reserve: this search's 8 primaries fund no backup yet.
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge().withBudgetRatio(0.05).withBudgetMinPerSecond(0),
                RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);

        assertThat(searches(script.at(3).fire())).as("refused at the hedge delay").isEmpty();
        assertThat(script.timerAtMillis()).as("tried again twice the hedge delay later").isEqualTo(9.0);
        assertThat(searches(script.at(9).fire())).as("still no room").isEmpty();
        assertThat(script.timerAtMillis()).as("then twice that wait").isEqualTo(20.0); // the cutoff comes first (21 ms)
        assertThat(script.counter("hedgerow.hedge.budget.refusals")).isEqualTo(2);

        // Other searches' primaries fund a backup (20 x 5% = 1): the straggler gets it at the next try.
        for (int i = 0; i < 20; i++) {
            script.budget().primarySent();
        }
        script.at(20).fire(); // the cutoff: not enough coverage to end without partition 2 (min 0.9 of 8)
        SearchCopy backup = sent(script.at(21).fire(), 2, 1, Kind.BACKUP, BACKUP);
        assertThat(result(script.at(22).ok(backup)).tainted()).isFalse();
    }

    @Test
    void aBusyLeafIsRetriedAtOnceOnTheOtherReplicaEvenWhenHedgingSpentTheBudget() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge().withBudgetRatio(0).withBudgetMinPerSecond(0),
                RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));

        // The retry floor: a leaf that fails what it held is retried whatever hedging spent.
        List<Action> busy = script.at(1).answer(primaries.get(2), Status.BUSY);

        SearchCopy retry = sent(busy, 2, 1, Kind.RETRY, INTERACTIVE);
        answerAllBut(script.at(2), primaries, 2);
        SearchResult result = result(script.at(3).ok(retry));
        assertThat(result.tainted()).isFalse();
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void aDrainingLeafsBusyAnswerIsRetriedAndNotCountedAsLoad() {
        RunScript script = RunScript.standard();
        int[] busyCharged = {0};
        script.metrics.onLeafBusy(() -> busyCharged[0]++);
        List<SearchCopy> primaries = searches(script.start(query()));

        // Leaf 2 said it drains after partition 2's primary went out; it refuses it busy.
        script.cluster.leaf(2).draining("shutting down");
        SearchCopy retry = sent(script.at(1).answer(primaries.get(2), Status.BUSY), 2, 1, Kind.RETRY, INTERACTIVE);
        answerAllBut(script.at(2), primaries, 2);
        assertThat(result(script.at(3).ok(retry)).tainted()).isFalse();

        assertThat(script.counter("hedgerow.subrequest.errors", "kind", "draining")).isEqualTo(1);
        assertThat(script.counter("hedgerow.subrequest.errors", "kind", "busy")).isZero();
        assertThat(busyCharged[0]).as("admission control is not told of load").isZero();
    }

    @Test
    void aLeafCrashRetriesEverythingItHeldEvenWhenHedgingSpentTheBudget() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge().withBudgetRatio(0).withBudgetMinPerSecond(0),
                RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 0, 4); // leaf 0 holds partitions 0 and 4
        assertThat(searches(script.at(3).fire())).as("no budget for backups").isEmpty();

        // Leaf 0 crashes: both partitions it held are retried at once, on the retry floor.
        SearchCopy retry0 = sent(script.at(4).lost(primaries.get(0)), 0, 2, Kind.RETRY, INTERACTIVE);
        SearchCopy retry4 = sent(script.lost(primaries.get(4)), 4, 2, Kind.RETRY, INTERACTIVE);

        script.at(5).ok(retry0);
        assertThat(result(script.ok(retry4)).tainted()).isFalse();
        assertThat(script.counter("hedgerow.hedge.budget.refusals")).as("the two backups, not the retries").isEqualTo(2);
    }

    @Test
    void aConnectionLostMidPhaseRetriesItsPartitionAtOnceOnAnotherReplica() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 1, 5);

        // Leaf 1 drops its connection: both of its partitions go to their other replicas now.
        List<Action> first = script.at(1.5).lost(primaries.get(1));
        List<Action> second = script.lost(primaries.get(5));
        SearchCopy retry1 = sent(first, 1, 3, Kind.RETRY, INTERACTIVE);
        SearchCopy retry5 = sent(second, 5, 3, Kind.RETRY, INTERACTIVE);

        script.at(2).ok(retry1);
        SearchResult result = result(script.ok(retry5));
        assertThat(result.tainted()).isFalse();
        assertThat(script.counter("hedgerow.subrequest.errors", "kind", "connection")).isEqualTo(2);
    }

    @Test
    void aPartitionEveryReplicaOfWhichFailedIsMissingFromATaintedResult() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 2);
        SearchCopy retry = sent(script.at(1.5).answer(primaries.get(2), Status.ERROR), 2, 1, Kind.RETRY, INTERACTIVE);

        List<Action> end = script.at(2).answer(retry, Status.BUSY);

        SearchResult result = result(end);
        assertThat(result.tainted()).isTrue();
        assertThat(result.coverage().partitionsAnswered()).isEqualTo(7);
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.partition()).isEqualTo(2);
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.BUSY);
            assertThat(error.leaf()).isEqualTo("127.0.0.1:9001");
        });
        assertThat(result.totalHits().exact()).isFalse();
    }

    @Test
    void pastTheCutoffWithEnoughCoverageTheStragglerIsCancelledAndTheResultTainted() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query().minCoverage(0.85)));
        answerAllBut(script.at(1), primaries, 2);
        SearchCopy backup = sent(script.at(3).fire(), 2, 1, Kind.BACKUP, BACKUP);

        // At t=20 ms the cutoff fires: 7 of 8 equal partitions hold 87.5% >= 85%.
        List<Action> cut = script.at(20).fire();

        assertThat(cancels(cut)).containsExactlyInAnyOrder(primaries.get(2), backup);
        SearchResult result = result(cut);
        assertThat(result.tainted()).isTrue();
        assertThat(result.coverage().docsFraction()).isEqualTo(0.875);
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.CANCELLED);
            assertThat(error.detail()).contains("good-enough cutoff of 20 ms", "min_coverage 85.0%");
        });
        assertThat(script.counter("hedgerow.goodenough.cutoffs")).isEqualTo(1);
    }

    @Test
    void withLessCoverageThanTheMinimumTheCutoffWaitsAndTheDeadlineEndsTheSearch() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query().hedge(HedgeMode.OFF).timeoutMillis(100)));
        assertThat(script.timerAtMillis()).as("the cutoff").isEqualTo(20.0);
        answerAllBut(script.at(1), primaries, 2);

        // 7 of 8 is under the default 90%: the cutoff changes nothing.
        List<Action> atCutoff = script.at(20).fire();
        assertThat(atCutoff).extracting(Object::getClass).containsExactly((Class) Action.ArmTimer.class);
        assertThat(script.timerAtMillis()).as("the deadline").isEqualTo(100.0);

        List<Action> deadline = script.at(100).fire();

        assertThat(cancels(deadline)).containsExactly(primaries.get(2));
        SearchResult result = result(deadline);
        assertThat(result.tainted()).isTrue();
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.TIMED_OUT);
            assertThat(error.detail()).isEqualTo("no answer within 100 ms");
        });
    }

    @Test
    void theDeadlineWithNoAnswerFailsTheSearchAsTimedOut() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query().hedge(HedgeMode.OFF).timeoutMillis(50)));
        script.at(20).fire();

        List<Action> deadline = script.at(50).fire();

        assertThat(cancels(deadline)).containsExactlyInAnyOrderElementsOf(primaries);
        assertThat(failure(deadline).kind()).isEqualTo(SearchException.Kind.TIMED_OUT);
        assertThat(script.counter("hedgerow.request.errors", "kind", "timed_out")).isEqualTo(1);
    }

    @Test
    void anAnswerCutShortIsMergedButTaintsTheResult() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        answerAllBut(script.at(1), primaries, 6);

        SearchResult result = result(script.at(2).cutShort(primaries.get(6)));

        assertThat(result.tainted()).isTrue();
        assertThat(result.coverage().partitionsAnswered()).isEqualTo(7);
        assertThat(result.hits()).extracting(io.hedgerow.api.Hit::id).contains("p6-0");
        assertThat(result.totalHits().exact()).as("a partial count is a lower bound").isFalse();
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.partition()).isEqualTo(6);
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.CUT_SHORT);
        });
    }

    @Test
    void aBadQueryFailsTheSearchAndCancelsTheRest() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));

        List<Action> bad = script.at(1).answer(primaries.get(0), Status.BAD_QUERY);

        assertThat(failure(bad).kind()).isEqualTo(SearchException.Kind.BAD_QUERY);
        assertThat(cancels(bad)).hasSize(7);
        assertThat(script.run().handle(new Event.Answered(primaries.get(1), RunScript.answerOf(1, 2, Status.OK, false),
                script.ticker.nanoTime()))).as("nothing after the end").isEmpty();
    }

    @Test
    void withEveryLeafDownTheSearchFailsAtOnceAsUnavailable() {
        RunScript script = RunScript.standard();
        for (int leaf = 0; leaf < 4; leaf++) {
            script.leaves.down(leaf);
        }

        List<Action> start = script.start(query());

        assertThat(searches(start)).isEmpty();
        assertThat(failure(start).kind()).isEqualTo(SearchException.Kind.UNAVAILABLE);
        assertThat(failure(start).getMessage()).contains("no replica of partition 0 is reachable");
        assertThat(finished(start)).isTrue();
    }
}
