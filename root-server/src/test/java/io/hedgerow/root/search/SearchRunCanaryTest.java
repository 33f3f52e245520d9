package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.cancels;
import static io.hedgerow.root.search.RunScript.failure;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.tail.Blocklist;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The canary phase of a {@link SearchRun}, scripted on a manual clock: the canary answers, errs,
 * is busy, crashes its leaf, goes silent, is overtaken; gets a backup; a restarting leaf. One
 * canary, drawn at partition 2 (leaves 2 and 3); the second canary's placement is {@link
 * CanaryPlacement}'s: partition 0 on leaf 1 (partition 0's other replica is on leaf 0, not on the
 * canary's leaf 2).
 */
class SearchRunCanaryTest {

    private static RunScript script() {
        return new RunScript(4, 8, 2, RunScript.hedge(), RunScript.tail().withCanaries(1)).canaryAt(2);
    }

    private static Blocklist blocklist(RunScript script) {
        return script.context.tail().blocklist();
    }

    @Test
    void aCanaryThatAnswersLetsTheQueryGoToEveryOtherPartitionAndIsUsed() {
        RunScript script = script();

        List<Action> start = script.start(query());
        SearchCopy canary = sent(start, 2, 2, Kind.CANARY, INTERACTIVE);
        assertThat(searches(start)).hasSize(1);
        assertThat(script.timerAtMillis()).as("the canary's hedge delay").isEqualTo(3.0);

        List<Action> fanOut = script.at(1).ok(canary);

        assertThat(searches(fanOut)).hasSize(7).noneMatch(c -> c.partition() == 2)
                .allSatisfy(c -> assertThat(c.kind()).isEqualTo(Kind.PRIMARY));
        List<Action> end = List.of();
        for (SearchCopy copy : searches(fanOut)) {
            end = script.at(2).ok(copy);
        }
        SearchResult result = result(end);
        assertThat(result.tainted()).isFalse();
        assertThat(result.trace()).filteredOn(t -> t.kind() == Kind.CANARY).singleElement()
                .satisfies(t -> assertThat(t.used()).isTrue());
    }

    @Test
    void aCanaryStillOutAtTheHedgeDelayGetsABackupCanaryOnAnotherLeafAndKeepsItsFirstCopy() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        // At t=3 ms the canary's hedge timer fires: a second canary, partition 1 to leaf 3, the
        // partner of leaf 2 (they share no partition, so both crashing would cost no partition).
        List<Action> hedge = script.at(3).fire();
        SearchCopy backup = sent(hedge, 1, 3, Kind.CANARY, INTERACTIVE);
        assertThat(cancels(hedge)).as("the first copy is kept").isEmpty();
        assertThat(script.timerAtMillis()).as("the canary timeout of the first copy").isEqualTo(50.0);

        // The backup answers first: the query goes on; partition 2 keeps its canary copy as its first.
        List<Action> fanOut = script.at(4).ok(backup);
        assertThat(searches(fanOut)).hasSize(6).noneMatch(c -> c.partition() == 2 || c.partition() == 1);
        assertThat(cancels(fanOut)).isEmpty();
        script.at(5).ok(canary);
        List<Action> end = List.of();
        for (SearchCopy copy : searches(fanOut)) {
            end = script.ok(copy);
        }
        assertThat(result(end).tainted()).isFalse();
        assertThat(script.subRequests(Kind.CANARY)).as("no extra leaf request: each canary is its partition's first")
                .isEqualTo(2);
        assertThat(script.counter("hedgerow.canary.resent")).isEqualTo(1);
    }

    @Test
    void aCanaryErrorIsRetriedOnTheOtherReplicaAndFailingOnEveryReplicaFailsTheQueryWithoutBlocklisting() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        SearchCopy retry = sent(script.at(1).answer(canary, Status.ERROR), 2, 1, Kind.RETRY, INTERACTIVE);
        List<Action> end = script.at(2).answer(retry, Status.BUSY);

        assertThat(searches(end)).as("the query goes no further").isEmpty();
        SearchException failure = failure(end);
        assertThat(failure.kind()).isEqualTo(SearchException.Kind.UNAVAILABLE);
        assertThat(failure.getMessage()).contains("the canary failed on every replica", "not blocklisted",
                "127.0.0.1:9002: error at the leaf", "127.0.0.1:9001: busy at the leaf");
        assertThat(blocklist(script).size()).isZero();
    }

    @Test
    void aBusyCanaryIsRetriedOnTheOtherReplicaAndTheQueryGoesOnWhenThatAnswers() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        SearchCopy retry = sent(script.at(1).answer(canary, Status.BUSY), 2, 1, Kind.RETRY, INTERACTIVE);
        List<Action> fanOut = script.at(2).ok(retry);

        assertThat(searches(fanOut)).hasSize(7).noneMatch(c -> c.partition() == 2);
    }

    @Test
    void aCanaryLostWithItsLeafGetsASecondOpinionAndLostOnASecondLeafTheQueryIsDangerous() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        // At t=1 ms leaf 2 drops the connection: not evidence yet; a second canary to leaf 3, its partner.
        List<Action> crash = script.at(1).lost(canary);
        SearchCopy second = sent(crash, 1, 3, Kind.CANARY, INTERACTIVE);
        assertThat(blocklist(script).size()).isZero();

        // At t=2 ms leaf 3 drops it too: two leaves, the query is dangerous, sent nowhere else (and
        // with leaves 2 and 3 gone, every partition still has its replica on leaf 0 or 1).
        List<Action> again = script.at(2).lost(second);

        assertThat(searches(again)).isEmpty();
        SearchException failure = failure(again);
        assertThat(failure.kind()).isEqualTo(SearchException.Kind.DANGEROUS);
        assertThat(failure.getMessage()).contains("127.0.0.1:9002 when the connection dropped",
                "127.0.0.1:9003 when the connection dropped", "blocklisted");
        assertThat(blocklist(script).list()).singleElement()
                .satisfies(entry -> assertThat(entry.reason()).isEqualTo(Blocklist.Reason.CANARY_CONNECTION_LOST));
        assertThat(script.counter("hedgerow.canary.dangerous", "reason", "canary_connection_lost")).isEqualTo(1);
    }

    /**
     * The query of death of LocalClusterTest, which once halted three of four leaves: its canary's
     * leaf dropped the connection before the canary's hedge delay, the second opinion went to the
     * partner, and then the hedge timer sent a "backup" canary to a third leaf, which died too.
     */
    @Test
    void aCanaryLostBeforeItsHedgeDelayGetsItsSecondOpinionAndNoBackupOnAThirdLeaf() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        // At t=1 ms leaf 2 drops the connection: the second opinion goes to leaf 3, its partner.
        SearchCopy second = sent(script.at(1).lost(canary), 1, 3, Kind.CANARY, INTERACTIVE);

        // At t=3 ms the canary's hedge timer fires: the second opinion is the backup; nothing more is sent.
        List<Action> hedge = script.at(3).fire();
        assertThat(searches(hedge)).as("canaries sent at the hedge delay").isEmpty();

        // At t=4 ms leaf 3 drops it too: dangerous, and only leaves 2 and 3 ever had the query.
        List<Action> again = script.at(4).lost(second);
        assertThat(searches(again)).isEmpty();
        assertThat(failure(again).kind()).isEqualTo(SearchException.Kind.DANGEROUS);
    }

    @Test
    void aLeafRestartingUnderTheCanaryCostsNothingButTheRetryOfItsPartition() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        SearchCopy second = sent(script.at(1).lost(canary), 1, 3, Kind.CANARY, INTERACTIVE);
        script.leaves.down(2); // restarting
        List<Action> fanOut = script.at(2).ok(second);

        // The lost canary's partition goes to its other replica, the others to a ready one.
        assertThat(searches(fanOut)).hasSize(7);
        sent(fanOut, 2, 1, Kind.RETRY, INTERACTIVE);
        assertThat(searches(fanOut)).noneMatch(c -> c.leaf() == 2);
        List<Action> end = List.of();
        for (SearchCopy copy : searches(fanOut)) {
            end = script.at(3).ok(copy);
        }
        assertThat(result(end).tainted()).isFalse();
        assertThat(blocklist(script).size()).isZero();
    }

    @Test
    void whileLeavesRestartASearchComesBackTaintedWithItsCoverageNeverAsAnError() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query())).getFirst();

        SearchCopy second = sent(script.at(1).lost(canary), 1, 3, Kind.CANARY, INTERACTIVE);
        script.leaves.down(2);
        script.leaves.down(1); // both replicas of partitions 2 and 6 are away
        List<Action> fanOut = script.at(2).ok(second);
        List<Action> end = List.of();
        for (SearchCopy copy : searches(fanOut)) {
            end = script.at(3).ok(copy);
        }

        SearchResult result = result(end);
        assertThat(result.tainted()).isTrue();
        assertThat(result.coverage().partitionsAnswered()).as("every partition with a replica up").isEqualTo(6);
        assertThat(result.errors()).extracting(PartitionError::partition).containsExactlyInAnyOrder(2, 6);
        assertThat(result.errors()).allSatisfy(error -> assertThat(error.kind()).isEqualTo(PartitionError.Kind.UNAVAILABLE));
    }

    @Test
    void aCanaryOnASilentLeafGetsASecondOpinionAndSilenceNeverBlocklists() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query().hedge(HedgeMode.OFF))).getFirst();
        assertThat(script.timerAtMillis()).as("no hedging: the canary timeout").isEqualTo(50.0);

        // At t=50 ms leaf 2 has answered nothing at all: a second canary on leaf 3, the first kept.
        List<Action> check = script.at(50).fire();
        SearchCopy second = sent(check, 1, 3, Kind.CANARY, INTERACTIVE);
        assertThat(cancels(check)).isEmpty();
        assertThat(script.timerAtMillis()).as("the second canary's timeout").isEqualTo(100.0);

        // Leaf 3 is silent too: wait, never blocklist.
        List<Action> again = script.at(100).fire();
        assertThat(searches(again)).isEmpty();
        assertThat(blocklist(script).size()).isZero();

        List<Action> fanOut = script.at(120).ok(canary);
        assertThat(searches(fanOut)).hasSize(6);
        assertThat(blocklist(script).size()).isZero();
    }

    @Test
    void aCanaryOvertakenPastItsTimeoutOnTwoLeavesFailsTheQueryAndBlocklistsItTheSecondTime() {
        RunScript script = script();
        List<Action> first = hangOnTwoLeaves(script);

        SearchException failure = failure(first);
        assertThat(failure.kind()).isEqualTo(SearchException.Kind.DANGEROUS);
        assertThat(failure.getMessage()).contains("did not answer within the canary timeout",
                "127.0.0.1:9002 and 127.0.0.1:9003", "not blocklisted the first time");
        assertThat(cancels(first)).hasSize(2);
        assertThat(blocklist(script).size()).as("two slow leaves can do that to a healthy query").isZero();

        // The same query hangs on two leaves again: now it is blocklisted.
        script.at(200);
        SearchException again = failure(hangOnTwoLeaves(script));
        assertThat(again.getMessage()).contains("blocklisted for");
        assertThat(blocklist(script).list()).singleElement()
                .satisfies(entry -> assertThat(entry.reason()).isEqualTo(Blocklist.Reason.CANARY_TIMED_OUT));
    }

    /** A search whose canary is overtaken past its timeout on leaf 2, then its second opinion on leaf 3. */
    private static List<Action> hangOnTwoLeaves(RunScript script) {
        double start = script.nowMillis();
        searches(script.start(query().hedge(HedgeMode.OFF)));
        script.leaves.overtakes(2);

        // At 50 ms leaf 2 has finished work sent after the canary: a second opinion, on leaf 3.
        SearchCopy second = sent(script.at(start + 50).fire(), 1, 3, Kind.CANARY, INTERACTIVE);
        script.leaves.overtakes(3);

        // At 100 ms the second canary is past its timeout and overtaken too.
        List<Action> verdict = script.at(start + 100).fire();
        assertThat(cancels(verdict)).contains(second);
        return verdict;
    }

    @Test
    void aCanaryQueuedBehindOlderWorkWaitsAndIsNeverBlocklisted() {
        RunScript script = script();
        SearchCopy canary = searches(script.start(query().hedge(HedgeMode.OFF))).getFirst();
        script.leaves.works(2); // answers older sub-requests only: an overload

        assertThat(searches(script.at(50).fire())).isEmpty();
        assertThat(script.timerAtMillis()).isEqualTo(100.0);
        assertThat(searches(script.at(100).fire())).isEmpty();

        assertThat(searches(script.at(130).ok(canary))).hasSize(7);
        assertThat(blocklist(script).size()).isZero();
    }

    @Test
    void aQueryKnownSafeSkipsTheCanaryWhenTheSkipIsOn() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge(),
                RunScript.tail().withCanaries(1).withSkipKnownSafe(true)).canaryAt(2);
        SearchCopy canary = searches(script.start(query())).getFirst();
        List<Action> end = List.of();
        for (SearchCopy copy : searches(script.at(1).ok(canary))) {
            end = script.ok(copy);
        }
        result(end);

        List<Action> again = script.at(2).start(query());

        assertThat(searches(again)).hasSize(8).allSatisfy(c -> assertThat(c.kind()).isEqualTo(Kind.PRIMARY));
    }
}
