package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.BACKUP;
import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.cancels;
import static io.hedgerow.root.search.RunScript.grouped;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.cost.BatchAdmissionSettings;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leaf batching ({@code --leaf-batching}), scripted on a manual clock: the primaries of a fan-out
 * that chose the same leaf go to it in one message ({@link Action.SendSearches}), each still its own
 * copy; backups, retries, tied copies, canaries and batch work the admission holds back go alone.
 * With the default shape (4 leaves, 8 partitions, 2 replicas, all idle), leaf L takes partitions L
 * and L + 4 ({@link RunScript}).
 */
@Timeout(10)
class SearchRunLeafBatchingTest {

    private static Set<Integer> partitionsOf(Action.SendSearches message) {
        return message.parts().stream().map(part -> part.copy().partition()).collect(Collectors.toSet());
    }

    @Test
    void aFanOutSendsEachLeafOneMessageCarryingItsPartitionsAsSeparateCopies() {
        RunScript script = RunScript.standard();

        List<Action> start = script.start(query());

        assertThat(start).noneMatch(a -> a instanceof Action.SendSearch);
        List<Action.SendSearches> messages = grouped(start);
        assertThat(messages).extracting(Action.SendSearches::leaf).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(messages).allSatisfy(message -> {
            assertThat(partitionsOf(message)).isEqualTo(Set.of(message.leaf(), message.leaf() + 4));
            assertThat(message.parts()).allSatisfy(part -> {
                assertThat(part.copy().kind()).isEqualTo(Kind.PRIMARY);
                assertThat(part.wire().getPartition()).isEqualTo(part.copy().partition());
                assertThat(part.wire().getRequestId()).isEqualTo(part.copy().requestId());
            });
        });
        assertThat(searches(start)).extracting(SearchCopy::requestId).doesNotHaveDuplicates().hasSize(8);
        assertThat(script.counter("hedgerow.subrequests.needed", "phase", "query")).isEqualTo(8);

        // Each part is answered on its own; the search completes as without batching.
        List<Action> end = List.of();
        for (SearchCopy copy : searches(start)) {
            end = script.at(1).ok(copy);
        }
        assertThat(result(end).tainted()).isFalse();
        assertThat(result(end).coverage().partitionsAnswered()).isEqualTo(8);
    }

    @Test
    void aBackupGoesAloneAndWhenItWinsOnlyThatPartsCopyIsCancelled() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        for (SearchCopy copy : primaries) {
            if (copy.partition() != 2) {
                script.at(1).ok(copy);
            }
        }

        List<Action> hedge = script.at(3).fire();

        SearchCopy backup = sent(hedge, 2, 1, Kind.BACKUP, BACKUP);
        assertThat(grouped(hedge)).isEmpty();
        List<Action> end = script.at(4).ok(backup);
        SearchCopy primaryOfTwo = primaries.stream().filter(c -> c.partition() == 2).findFirst().orElseThrow();
        assertThat(cancels(end)).containsExactly(primaryOfTwo);
        assertThat(result(end).tainted()).isFalse();
    }

    @Test
    void aRetryAfterAFailedPartGoesAlone() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(query()));
        SearchCopy primaryOfOne = primaries.stream().filter(c -> c.partition() == 1).findFirst().orElseThrow();

        List<Action> retry = script.at(1).answer(primaryOfOne, Status.ERROR);

        assertThat(grouped(retry)).isEmpty();
        sent(retry, 1, 3, Kind.RETRY, INTERACTIVE);
    }

    @Test
    void withLeafBatchingOffEveryCopyGoesAlone() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge(), RunScript.tail().withCanaries(0), false,
                BatchAdmissionSettings.defaults());

        List<Action> start = script.start(query());

        assertThat(grouped(start)).isEmpty();
        assertThat(start).filteredOn(a -> a instanceof Action.SendSearch).hasSize(8);
    }

    @Test
    void tiedCopiesGoAloneTheirLeavesCancelEachOtherPerCopy() {
        RunScript script = RunScript.standard();

        List<Action> start = script.start(query().hedge(HedgeMode.TIED));

        assertThat(grouped(start)).isEmpty();
        assertThat(searches(start)).hasSize(8);
    }

    @Test
    void batchWorkGoesAloneWhileTheBatchAdmissionAdmitsCopiesOneByOne() {
        RunScript held = RunScript.standard();
        List<Action> start = held.start(query().priority(QueryPriority.BATCH));
        assertThat(grouped(start)).isEmpty();
        assertThat(searches(start)).hasSize(8);

        RunScript admissionOff = new RunScript(4, 8, 2, RunScript.hedge(), RunScript.tail().withCanaries(0), true,
                BatchAdmissionSettings.off());
        assertThat(grouped(admissionOff.start(query().priority(QueryPriority.BATCH)))).hasSize(4);
    }

    @Test
    void theCanaryGoesAloneAndTheRestOfTheFanOutIsGroupedWhenItPasses() {
        RunScript script = new RunScript(4, 8, 2, RunScript.hedge(), RunScript.tail().withCanaries(1)).canaryAt(2);
        List<Action> start = script.start(query());
        SearchCopy canary = sent(start, 2, 2, Kind.CANARY, INTERACTIVE);
        assertThat(grouped(start)).isEmpty();

        List<Action> fanOut = script.at(1).ok(canary);

        assertThat(searches(fanOut)).hasSize(7).noneMatch(c -> c.partition() == 2);
        assertThat(grouped(fanOut)).allSatisfy(message -> assertThat(message.parts()).hasSizeGreaterThanOrEqualTo(2));
        int inMessages = grouped(fanOut).stream().mapToInt(m -> m.parts().size()).sum();
        long alone = fanOut.stream().filter(a -> a instanceof Action.SendSearch).count();
        assertThat(inMessages + alone).isEqualTo(7);
        assertThat(grouped(fanOut)).isNotEmpty();
    }
}
