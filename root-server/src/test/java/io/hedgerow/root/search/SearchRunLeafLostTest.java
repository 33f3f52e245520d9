package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.fetches;
import static io.hedgerow.root.search.RunScript.finished;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.hedge.HedgeSettings;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leaf that dies mid-search, with live replicas of everything it held, fails no search and
 * leaves no partition out, even when the hedge budget has nothing left (a crash under load fails
 * every copy it held at once, on every search): its lost copies did no work, so re-sending them to
 * a replica adds no load, and the budget, which bounds extra load, is not asked. Scripted on
 * {@link RunScript}'s layout: leaf 0 holds partitions 0 and 4 (their other replica on leaf 2), leaf
 * 2 partitions 2 and 6 (theirs on leaf 1).
 */
@Timeout(10)
class SearchRunLeafLostTest {
    /** Hedged after 3 ms, with no budget at all: no backup, no retry floor. */
    private static HedgeSettings noBudget() {
        return RunScript.hedge().withBudgetRatio(0).withBudgetMinPerSecond(0).withRetryFloorPerSecond(0);
    }

    @Test
    void aLeafLostMidQueryPhaseIsRetriedOnReplicasWithoutBudgetAndTheResultIsComplete() {
        RunScript script = new RunScript(4, 8, 2, noBudget(), RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query()));
        for (SearchCopy copy : primaries) {
            if (copy.leaf() != 0) {
                script.at(1).ok(copy);
            }
        }

        // At t=2 ms leaf 0 is killed: its two copies come back lost, and go to their replicas at once.
        SearchCopy retry0 = sent(script.at(2).lost(primaries.get(0)), 0, 2, Kind.RETRY, INTERACTIVE);
        SearchCopy retry4 = sent(script.lost(primaries.get(4)), 4, 2, Kind.RETRY, INTERACTIVE);

        script.at(3).ok(retry0);
        SearchResult result = result(script.ok(retry4));
        assertThat(result.tainted()).as("complete from the replicas").isFalse();
        assertThat(result.errors()).isEmpty();
    }

    @Test
    void aCanaryLostWithItsLeafLeavesItsPartitionToItsReplicaAndTheResultComplete() {
        RunScript script = new RunScript(4, 8, 2, noBudget(), RunScript.tail().withCanaries(1)).canaryAt(2);
        SearchCopy canary = searches(script.start(query())).getFirst();
        assertThat(canary.leaf()).isEqualTo(2);

        SearchCopy second = searches(script.at(1).lost(canary)).getFirst(); // a second opinion elsewhere
        List<Action> fanOut = script.at(2).ok(second);
        SearchCopy retry = sent(fanOut, 2, 1, Kind.RETRY, INTERACTIVE); // the lost canary's partition
        List<Action> end = List.of();
        for (SearchCopy copy : searches(fanOut)) {
            end = script.at(3).ok(copy);
        }
        assertThat(retry.done()).isTrue();
        SearchResult result = result(end);
        assertThat(result.tainted()).isFalse();
    }

    @Test
    void aCanaryWhoseRetryTheBudgetRefusesDoesNotFailTheSearch() {
        // Leaf 2's replica of the canary's partition answers busy (its replicas took the load of a
        // dead leaf), and no budget is left for a retry: that proves nothing about the query.
        RunScript script = new RunScript(4, 8, 2, noBudget(), RunScript.tail().withCanaries(1)).canaryAt(2);
        SearchCopy canary = searches(script.start(query())).getFirst();

        List<Action> busy = script.at(1).answer(canary, Status.BUSY);
        assertThat(finished(busy)).as("not failed: a 503 for want of budget").isFalse();
        SearchCopy second = searches(busy).getFirst();
        assertThat(second.kind()).isEqualTo(Kind.CANARY);
        assertThat(second.leaf()).isNotEqualTo(2);

        List<Action> end = List.of();
        for (SearchCopy copy : searches(script.at(2).ok(second))) {
            end = script.at(3).ok(copy);
        }
        SearchResult result = result(end);
        assertThat(result.coverage().partitionsAnswered()).as("all but the busy partition, with no retry allowed")
                .isEqualTo(7);
    }

    @Test
    void aFetchLostWithItsLeafIsRetriedOnTheReplicaWithoutBudget() {
        RunScript script = new RunScript(4, 8, 2, noBudget(), RunScript.tail().withCanaries(0));
        List<SearchCopy> primaries = searches(script.start(query().storedFields(true).hedge(HedgeMode.OFF)));
        List<Action> last = List.of();
        for (SearchCopy copy : primaries) {
            last = script.at(1).ok(copy);
        }
        List<FetchCopy> fetches = fetches(last);
        FetchCopy onLeaf0 = fetches.stream().filter(f -> f.leaf() == 0).findFirst().orElseThrow();
        List<Action> end = List.of();
        for (FetchCopy fetch : fetches) {
            if (fetch != onLeaf0) {
                end = script.at(2).fetched(fetch);
            }
        }

        List<FetchCopy> retries = fetches(script.at(3).lost(onLeaf0));
        assertThat(retries).as("a retry on the other replica, though no budget is left").singleElement()
                .satisfies(retry -> assertThat(retry.kind()).isEqualTo(Kind.FETCH_RETRY));
        SearchResult result = result(script.at(4).fetched(retries.getFirst()));
        assertThat(result.degraded()).as("every hit has its fields").isFalse();
    }
}
