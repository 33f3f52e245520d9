package io.hedgerow.root.search;

import static io.hedgerow.common.wire.proto.Priority.BACKUP;
import static io.hedgerow.common.wire.proto.Priority.INTERACTIVE;
import static io.hedgerow.root.search.RunScript.cancels;
import static io.hedgerow.root.search.RunScript.fetchWires;
import static io.hedgerow.root.search.RunScript.fetches;
import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.result;
import static io.hedgerow.root.search.RunScript.searches;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.Coverage;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Hit;
import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fetch phase of a {@link SearchRun}, scripted on a manual clock. The top 5 of the scripted
 * answers are the best hit of partitions 7, 6, 5, 4 and 3, answered by leaves 3, 2, 1, 0 and 3:
 * four fetches, one per leaf, leaf 3's for two hits.
 */
class SearchRunFetchTest {

    private static SearchRequest.Builder withFields() {
        return query().storedFields(true);
    }

    /** Runs the query phase to its end at t=1 ms; returns the fetches sent, by leaf. */
    private static Map<Integer, FetchCopy> queryPhase(RunScript script, SearchRequest.Builder request) {
        List<SearchCopy> primaries = searches(script.start(request));
        List<Action> last = List.of();
        for (SearchCopy copy : primaries) {
            last = script.at(1).ok(copy);
        }
        List<FetchCopy> fetches = fetches(last);
        java.util.Map<Integer, FetchCopy> byLeaf = new java.util.TreeMap<>();
        for (FetchCopy fetch : fetches) {
            byLeaf.put(fetch.leaf(), fetch);
        }
        return byLeaf;
    }

    @Test
    void fetchesEachLeafsHitsByDocumentIdFromTheLeafThatAnsweredThem() {
        RunScript script = RunScript.standard();
        List<SearchCopy> primaries = searches(script.start(withFields()));
        List<Action> last = List.of();
        for (SearchCopy copy : primaries) {
            last = script.at(1).ok(copy);
        }

        assertThat(fetches(last)).extracting(FetchCopy::leaf).containsExactly(3, 2, 1, 0);
        assertThat(fetches(last)).allSatisfy(f -> {
            assertThat(f.kind()).isEqualTo(Kind.FETCH);
            assertThat(f.priority()).isEqualTo(INTERACTIVE);
        });
        assertThat(fetchWires(last).getFirst().getItemsList()).extracting(FetchItem::getPartition, FetchItem::getId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(7, "p7-0"), org.assertj.core.groups.Tuple.tuple(3, "p3-0"));
        assertThat(script.counter("hedgerow.subrequests.needed", "phase", "fetch")).isEqualTo(4);
        assertThat(script.timerAtMillis()).as("the fetch phase's own hedge delay").isEqualTo(4.0);

        List<Action> end = List.of();
        for (FetchCopy fetch : fetches(last)) {
            end = script.at(2).fetched(fetch);
        }
        SearchResult result = result(end);
        assertThat(result.tainted()).isFalse();
        assertThat(result.degraded()).isFalse();
        assertThat(result.errors()).isEmpty();
        assertThat(result.hits()).allSatisfy(hit -> assertThat(hit.fields()).containsEntry("title", "title of " + hit.id()));
    }

    @Test
    void aFetchStillOutAtItsHedgeDelayGetsABackupOnTheOtherReplicasAndTheLateOneIsCancelled() {
        RunScript script = RunScript.standard();
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields());
        for (int leaf : List.of(0, 1, 2)) {
            script.at(2).fetched(fetches.get(leaf));
        }

        // At t=4 ms leaf 3's fetch (partitions 7 and 3) is still out: backups on their other
        // replicas, leaf 1 for partition 7 and leaf 0 for partition 3, at BACKUP.
        List<Action> hedge = script.at(4).fire();
        List<FetchCopy> backups = fetches(hedge);
        assertThat(backups).extracting(FetchCopy::leaf).containsExactly(1, 0);
        assertThat(backups).allSatisfy(b -> {
            assertThat(b.kind()).isEqualTo(Kind.FETCH_BACKUP);
            assertThat(b.priority()).isEqualTo(BACKUP);
        });
        assertThat(cancels(hedge)).isEmpty();

        assertThat(script.at(5).fetched(backups.get(0))).as("one hit still waits on leaf 3's fetch")
                .noneMatch(a -> a instanceof Action.Cancel || a instanceof Action.Finish);
        List<Action> end = script.fetched(backups.get(1));

        assertThat(cancels(end)).containsExactly(fetches.get(3));
        SearchResult result = result(end);
        assertThat(result.errors()).isEmpty();
        assertThat(result.hits()).allSatisfy(hit -> assertThat(hit.fields()).isNotEmpty());
        assertThat(script.subRequests(Kind.FETCH_BACKUP)).isEqualTo(2);
        assertThat(script.counter("hedgerow.hedge.backups.won")).isEqualTo(2);
    }

    @Test
    void aHitOfAPartitionWithAThirdCopyGetsASecondFetchBackupRound() {
        // Partition 7 has gained a third copy on leaf 0; partition 3 keeps its two (leaves 3 and 0).
        RunScript script = RunScript.standard().serving(7, 3, 1, 0);
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields());
        for (int leaf : List.of(0, 1, 2)) {
            script.at(2).fetched(fetches.get(leaf));
        }
        List<FetchCopy> first = fetches(script.at(4).fire());
        assertThat(first).extracting(FetchCopy::leaf).containsExactly(1, 0);
        assertThat(script.timerAtMillis()).as("a second round, a fetch hedge delay later").isEqualTo(7.0);
        script.at(5).fetched(first.get(1)); // partition 3's hit, from leaf 0

        // At t=7 ms partition 7's hit still waits on leaves 3 and 1: a third fetch, on leaf 0.
        List<FetchCopy> second = fetches(script.at(7).fire());
        assertThat(second).extracting(FetchCopy::leaf).containsExactly(0);
        assertThat(second.getFirst().kind()).isEqualTo(Kind.FETCH_BACKUP);

        List<Action> end = script.at(9).fetched(second.getFirst());
        assertThat(cancels(end)).containsExactlyInAnyOrder(fetches.get(3), first.get(0));
        assertThat(result(end).hits()).allSatisfy(hit -> assertThat(hit.fields()).isNotEmpty());
        assertThat(script.subRequests(Kind.FETCH_BACKUP)).isEqualTo(3);
    }

    @Test
    void aFailedFetchIsRetriedOnceElsewhereThenItsHitComesWithoutFieldsAndTheResultStaysComplete() {
        RunScript script = RunScript.standard();
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields().hedge(HedgeMode.OFF));
        for (int leaf : List.of(0, 2, 3)) {
            script.at(2).fetched(fetches.get(leaf));
        }

        // Leaf 1's fetch (partition 5) fails: once more, on partition 5's other replica, leaf 3.
        List<Action> failed = script.at(3).fetched(fetches.get(1), Status.ERROR);
        FetchCopy retry = fetches(failed).getFirst();
        assertThat(retry.kind()).isEqualTo(Kind.FETCH_RETRY);
        assertThat(retry.leaf()).isEqualTo(3);

        List<Action> end = script.at(4).fetched(retry, Status.BUSY);

        SearchResult result = result(end);
        assertThat(result.tainted()).as("a hit without details does not reduce coverage").isFalse();
        assertThat(result.degraded()).as("but the answer says, at its top, that hits lack what was asked").isTrue();
        assertThat(result.coverage().degraded()).containsExactly(Coverage.Degradation.FETCH_FAILED);
        assertThat(result.hits()).filteredOn(h -> h.id().equals("p5-0")).singleElement()
                .satisfies(hit -> assertThat(hit.fields()).isEmpty());
        assertThat(result.errors()).singleElement().satisfies(error -> {
            assertThat(error.kind()).isEqualTo(PartitionError.Kind.FETCH_FAILED);
            assertThat(error.detail()).isEqualTo("details of hit p5-0: 127.0.0.1:9003: busy (it went wrong)");
        });
    }

    @Test
    void aFetchLostWithItsConnectionIsRetriedAtOnceOnTheOtherReplica() {
        RunScript script = RunScript.standard();
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields().hedge(HedgeMode.OFF));

        List<Action> lost = script.at(2).lost(fetches.get(2)); // partition 6: leaves 2 and 1

        FetchCopy retry = fetches(lost).getFirst();
        assertThat(retry.kind()).isEqualTo(Kind.FETCH_RETRY);
        assertThat(retry.leaf()).isEqualTo(1);
        for (int leaf : List.of(0, 1, 3)) {
            script.at(3).fetched(fetches.get(leaf));
        }
        assertThat(result(script.fetched(retry)).errors()).isEmpty();
    }

    @Test
    void aReplicaThatDoesNotHoldTheDocumentNamedIsNotBelievedAndAnotherIsAsked() {
        RunScript script = RunScript.standard();
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields().hedge(HedgeMode.OFF));
        for (int leaf : List.of(1, 2, 3)) {
            script.at(2).fetched(fetches.get(leaf));
        }

        // Leaf 0 answers for partition 4 with another document's fields (or none): not used.
        FetchResponse wrong = FetchResponse.newBuilder().setRequestId(fetches.get(0).requestId()).setStatus(Status.OK)
                .addDocs(FetchedDoc.newBuilder().setPartition(4).setDoc(10).setId("p4-other")
                        .addFields(StoredField.newBuilder().setName("title").setValue("not this one")))
                .build();
        List<Action> answered = script.at(3).fetched(fetches.get(0), wrong);

        FetchCopy retry = fetches(answered).getFirst();
        assertThat(retry.kind()).isEqualTo(Kind.FETCH_RETRY);
        assertThat(retry.leaf()).as("partition 4's other replica").isEqualTo(2);
        SearchResult result = result(script.at(4).fetched(retry));
        assertThat(result.hits()).filteredOn(h -> h.id().equals("p4-0")).extracting(Hit::fields)
                .containsExactly(Map.of("title", "title of p4-0"));
    }

    @Test
    void atTheDeadlineTheFetchesStillOutAreCancelledAndTheirHitsComeWithoutFields() {
        RunScript script = RunScript.standard();
        Map<Integer, FetchCopy> fetches = queryPhase(script, withFields().hedge(HedgeMode.OFF).timeoutMillis(30));
        for (int leaf : List.of(0, 1, 2)) {
            script.at(2).fetched(fetches.get(leaf));
        }

        List<Action> deadline = script.at(30).fire();

        assertThat(cancels(deadline)).containsExactly(fetches.get(3));
        SearchResult result = result(deadline);
        assertThat(result.errors()).extracting(PartitionError::detail)
                .containsExactlyInAnyOrder("details of hit p7-0: no answer within 30 ms",
                        "details of hit p3-0: no answer within 30 ms");
    }
}
