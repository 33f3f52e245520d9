package io.hedgerow.root.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.AdaptationSettings;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A search's sub-request counters are added once per event (one update per kind), not once per
 * copy: scripted through {@link DetachedRoot}, after every event they read exactly what the copies
 * sent so far say, as they did when each copy was counted as it went.
 */
@Timeout(10)
class SubRequestCountersTest {
    private static final long MS = DetachedRootScript.MS;
    private static final RandomGenerator ZERO = new RandomGenerator() {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public int nextInt(int bound) {
            return 0;
        }
    };

    @Test
    void afterEveryEventTheCountersAreTheCopiesSentSoFar() {
        DetachedRootScript script = new DetachedRootScript(DetachedRootScript.config(4,
                AdaptationSettings.defaults().withLatencyAwareChoice(false)));
        for (int leaf = 0; leaf < 4; leaf++) {
            script.cluster.leaf(leaf).connectionReady();
        }

        DetachedRoot.Search first = script.search(ZERO);
        assertCountersMatch(script, 4, "after the fan-out");
        assertThat(sent(script, SubRequestTrace.Kind.PRIMARY)).isEqualTo(4);

        script.at(1);
        for (int partition = 0; partition < 3; partition++) {
            script.answer(script.last(partition), Status.OK, MS);
            assertCountersMatch(script, 4, "after partition " + partition + " answered");
        }
        script.at(3);
        first.timer(script.ticker.nanoTime()); // partition 3's backup
        assertThat(sent(script, SubRequestTrace.Kind.BACKUP)).as("a backup went out").isEqualTo(1);
        assertCountersMatch(script, 4, "after the hedge");

        script.answer(script.last(3), Status.BUSY, 0); // the backup fails: no retry while the primary is out
        script.answer(script.sentOf(3).getFirst(), Status.OK, 2 * MS);
        assertCountersMatch(script, 4, "after the search ended");

        script.search(ZERO); // a second search adds to them
        assertCountersMatch(script, 8, "after a second fan-out");
    }

    /** Every kind's counter against the copies the wire was given; and the sub-requests the searches needed. */
    private static void assertCountersMatch(DetachedRootScript script, int needed, String when) {
        for (SubRequestTrace.Kind kind : SubRequestTrace.Kind.values()) {
            assertThat(counted(script, kind)).as("%s counted %s", kind, when)
                    .isEqualTo((double) sent(script, kind));
        }
        assertThat(script.metrics.registry().get("hedgerow.subrequests.needed").tag("phase", "query").counter().count())
                .as("query sub-requests needed %s", when).isEqualTo((double) needed);
    }

    private static long sent(DetachedRootScript script, SubRequestTrace.Kind kind) {
        return script.sent.stream().filter(c -> c.kind() == kind).count();
    }

    private static double counted(DetachedRootScript script, SubRequestTrace.Kind kind) {
        return script.metrics.registry().get("hedgerow.subrequests").tag("kind", kind.name().toLowerCase())
                .counter().count();
    }
}
