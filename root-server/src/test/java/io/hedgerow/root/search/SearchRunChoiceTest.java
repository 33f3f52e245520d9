package io.hedgerow.root.search;

import static io.hedgerow.root.search.RunScript.query;
import static io.hedgerow.root.search.RunScript.sent;
import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SubRequestTrace.Kind;
import io.hedgerow.common.wire.proto.Priority;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A search's replica choices count as they are made: all of them are made before anything is sent,
 * so without this one search piles onto whichever replicas looked best as it started.
 */
@Timeout(10)
class SearchRunChoiceTest {

    @Test
    void aSearchsSecondChoiceSeesItsFirst() {
        // Partitions 0 and 1 both prefer leaf 0, with leaf 1 as good (idle, the same outstanding).
        RunScript script = new RunScript(3, 2, 2, RunScript.hedge(), RunScript.tail().withCanaries(0))
                .serving(0, 0, 1).serving(1, 0, 1);
        List<Action> actions = script.start(query());

        sent(actions, 0, 0, Kind.PRIMARY, Priority.INTERACTIVE);
        sent(actions, 1, 1, Kind.PRIMARY, Priority.INTERACTIVE); // leaf 0 already has partition 0's copy
    }

    @Test
    void choicesAlternateAcrossOneSearchsPartitions() {
        // Three partitions on leaves 0 and 1, all preferring leaf 0: they alternate as they are chosen.
        RunScript script = new RunScript(2, 3, 2, RunScript.hedge(), RunScript.tail().withCanaries(0))
                .serving(0, 0, 1).serving(1, 0, 1).serving(2, 0, 1);
        List<Action> actions = script.start(query());

        sent(actions, 0, 0, Kind.PRIMARY, Priority.INTERACTIVE);
        sent(actions, 1, 1, Kind.PRIMARY, Priority.INTERACTIVE);
        sent(actions, 2, 0, Kind.PRIMARY, Priority.INTERACTIVE);
    }
}
