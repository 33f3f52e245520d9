package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.MS;
import static io.hedgerow.root.search.RunScript.cancels;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static io.hedgerow.root.search.RunScript.wires;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tied requests in a {@link SearchRun}, scripted on a manual clock (the tied delay is 1 ms until measured). */
class SearchRunTiedTest {

    @Test
    void eachFirstCopyNamesItsTwinAndTheTwinsFollowAfterTheTiedDelayChargedToTheBudget() {
        RunScript script = RunScript.standard();
        List<Action> start = script.start(query().hedge(HedgeMode.TIED));

        assertThat(wires(start)).hasSize(8).allSatisfy(wire -> assertThat(wire.hasTwin()).isTrue());
        assertThat(wires(start).get(2).getTwin().getLeafAddress()).isEqualTo("127.0.0.1:9001");
        assertThat(script.context.budget().backupsInWindow()).as("eight twins charged").isEqualTo(8);
        assertThat(script.timerAtMillis()).isEqualTo(1.0);
        List<SearchCopy> firsts = searches(start);
        for (SearchCopy first : firsts) {
            if (first.partition() != 2) {
                script.at(0.5).ok(first);
            }
        }

        // At t=1 ms the tied timer fires: only partition 2 is still waiting; its twin goes to leaf 1.
        List<Action> twins = script.at(1).fire();
        SearchCopy twin = sent(twins, 2, 1, Kind.TWIN, INTERACTIVE);
        assertThat(searches(twins)).hasSize(1);
        assertThat(wires(twins).getFirst().getTwin().getRequestId()).isEqualTo(firsts.get(2).requestId());
        assertThat(wires(twins).getFirst().getTwin().getGraceNanos()).as("the twin's grace at its leaf: the tied delay")
                .isEqualTo(1 * MS);
        assertThat(wires(start).get(2).getTwin().getGraceNanos()).as("a first copy starts at once").isZero();
        assertThat(wires(start).get(2).getTwin().getRequestId()).isEqualTo(twin.requestId());
        assertThat(script.context.budget().backupsInWindow()).as("the seven twins never sent gave their charge back")
                .isEqualTo(1);

        List<Action> end = script.at(2).ok(twin);
        assertThat(cancels(end)).containsExactly(firsts.get(2));
        assertThat(firsts.get(2).tiedLoser()).isTrue();
        assertThat(result(end).tainted()).isFalse();
    }

    @Test
    void aTwinDroppedForItsStartedCopyLeavesItsLeafEligibleForTheRetryWhenThatCopyFails() {
        RunScript script = RunScript.standard();
        List<SearchCopy> firsts = searches(script.start(query().hedge(HedgeMode.TIED)));
        for (SearchCopy first : firsts) {
            if (first.partition() != 2) {
                script.at(0.5).ok(first);
            }
        }
        SearchCopy twin = sent(script.at(1).fire(), 2, 1, Kind.TWIN, INTERACTIVE);

        // Leaf 2 started the first copy and dropped the twin on leaf 1; then the first copy fails.
        List<Action> dropped = script.at(1.2).answer(twin, Status.CANCELLED);
        assertThat(searches(dropped)).as("the first copy is still out").isEmpty();
        List<Action> failed = script.at(2).answer(firsts.get(2), Status.ERROR);

        // Leaf 1 never ran the twin: it is asked again rather than the partition reported unreachable.
        SearchCopy retry = sent(failed, 2, 1, Kind.RETRY, INTERACTIVE);
        SearchResult result = result(script.at(3).ok(retry));
        assertThat(result.tainted()).isFalse();
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void aTwinTheBudgetRefusesIsNotNamed() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge().withBudgetRatio(0).withBudgetMinPerSecond(0),
                RunScript.tail().withCanaries(0));

        List<Action> start = script.start(query().hedge(HedgeMode.TIED));

        assertThat(wires(start)).hasSize(8).noneMatch(wire -> wire.hasTwin());
        assertThat(script.counter("hedgerow.hedge.budget.refusals")).isEqualTo(8);
        assertThat(searches(script.at(1).fire())).isEmpty();
    }
}
