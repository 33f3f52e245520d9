package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.BACKUP;
import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static io.hedgerow.root.search.RunScript.sent;
import static io.hedgerow.root.search.RunScript.wires;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Coverage;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Out-of-sync (stale) replicas, scripted: never a backup or a tied twin, so a stale copy cannot win
 * a race against a merely slow in-sync one; never read unless the request allows stale copies, and
 * then only as a partition's last resort, and the result says so. Partition 0 lives on leaves 0 and
 * 2; leaf 2's copy of it is stale.
 */
@Timeout(10)
class SearchRunStaleCopyTest {

    @Test
    void aStaleReplicaIsNeverABackup() {
        RunScript script = RunScript.standard();
        script.leaves.markStale(0, 2);
        List<SearchCopy> primaries = searches(script.start(query()));
        for (SearchCopy copy : primaries) {
            if (copy.partition() != 0 && copy.partition() != 1) {
                script.at(1).ok(copy);
            }
        }

        // At t=3 ms partitions 0 and 1 still wait: partition 1 gets its backup, partition 0 none.
        List<Action> round = script.at(3).fire();
        sent(round, 1, 3, Kind.BACKUP, BACKUP);
        assertThat(searches(round)).as("no backup of partition 0 to its stale replica").hasSize(1);

        script.at(4).ok(searches(round).getFirst());
        SearchResult result = result(script.at(5).ok(primaries.getFirst()));
        assertThat(result.tainted()).isFalse();
        assertThat(result.degraded()).isFalse();
    }

    @Test
    void aStaleReplicaIsNeverATiedTwin() {
        RunScript script = RunScript.standard();
        script.leaves.markStale(0, 2);
        List<Action> start = script.start(query().hedge(HedgeMode.TIED));

        assertThat(wires(start).getFirst().getPartition()).isZero();
        assertThat(wires(start).getFirst().hasTwin()).as("partition 0's first copy names no twin").isFalse();
        assertThat(wires(start).get(1).getTwin().getLeafAddress()).as("partition 1's twin, on leaf 3 (in sync)")
                .isEqualTo("127.0.0.1:9003");
    }

    @Test
    void byDefaultAPartitionWithOnlyAStaleReplicaUpGoesUnansweredAndTheErrorSaysWhy() {
        RunScript script = RunScript.standard();
        script.leaves.markStale(0, 2);
        script.leaves.down(0);
        List<SearchCopy> copies = searches(script.start(query().hedge(HedgeMode.OFF)));
        assertThat(copies).as("nothing sent for partition 0").noneMatch(c -> c.partition() == 0);

        List<Action> end = List.of();
        for (SearchCopy copy : copies) {
            end = script.at(1).ok(copy);
        }
        SearchResult result = result(end);
        assertThat(result.tainted()).as("partition 0 missing").isTrue();
        assertThat(result.degraded()).isFalse();
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.partition()).isZero();
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.UNAVAILABLE);
            assertThat(error.detail()).contains("no in-sync replica of partition 0", "allow_stale=true");
        });
    }

    @Test
    void aStaleReplicaAsTheLastResortAnswersWhenAllowedAndTheResultSaysSo() {
        RunScript script = RunScript.standard();
        script.leaves.markStale(0, 2);
        script.leaves.down(0);
        List<SearchCopy> copies = searches(script.start(query().hedge(HedgeMode.OFF).allowStale(true)));
        SearchCopy last = copies.stream().filter(c -> c.partition() == 0).findFirst().orElseThrow();
        assertThat(last.leaf()).as("partition 0's only replica up is the stale one").isEqualTo(2);
        assertThat(last.priority()).isEqualTo(INTERACTIVE);

        List<Action> end = List.of();
        for (SearchCopy copy : copies) {
            end = script.at(1).ok(copy);
        }
        SearchResult result = result(end);
        assertThat(result.tainted()).as("every partition answered").isFalse();
        assertThat(result.degraded()).isTrue();
        assertThat(result.coverage().degraded()).containsExactly(Coverage.Degradation.STALE_COPY);
    }
}
