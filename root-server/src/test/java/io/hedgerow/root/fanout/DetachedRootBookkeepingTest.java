package io.hedgerow.root.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.api.SubRequestTrace;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.placement.PlacementSettings;
import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator's request path books answers as a connection does: scripted through {@link
 * DetachedRoot} on a manual clock. These are the places where it had drifted from the server.
 */
@Timeout(10)
class DetachedRootBookkeepingTest {
    private static final long MS = 1_000_000L;
    /** Every draw 0: the first candidates, and every shadow sampled. */
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

    /**
     * {@code leaves} leaves, as many partitions, 2 replicas (p: p, p+1), hedged after 3 ms, every leaf
     * connected, load measured.
     */
    private static DetachedRootScript script(int leaves) {
        DetachedRootScript script = new DetachedRootScript(DetachedRootScript.config(leaves,
                        AdaptationSettings.defaults().withLatencyAwareChoice(false))
                .withPlacement(PlacementSettings.off().withRebalancing(true))); // something reads the load
        for (int leaf = 0; leaf < leaves; leaf++) {
            script.cluster.leaf(leaf).connectionReady();
        }
        return script;
    }

    @Test
    void aCancelledCopyAddsNothingToItsPartitionsLoad() {
        DetachedRootScript script = script(2);
        DetachedRoot.Search search = script.search(ZERO);
        DetachedRoot.Copy primary = script.sentOf(0).getFirst();
        script.at(1);
        script.answer(script.sentOf(1).getFirst(), Status.OK, MS);
        script.at(3);
        search.timer(script.ticker.nanoTime()); // p0's backup goes to the other replica
        DetachedRoot.Copy backup = script.sentOf(0).getLast();
        assertThat(backup.kind()).isEqualTo(SubRequestTrace.Kind.BACKUP);
        script.at(4);
        script.answer(backup, Status.OK, 2 * MS); // wins: the primary is cancelled
        script.at(50);
        script.answer(primary, Status.OK, 40 * MS); // the cancelled primary's late answer

        assertThat(script.cluster.partitionLoad().totals()[0])
                .as("partition 0's load: its backup's work, not the cancelled primary's (as a connection books it)")
                .isEqualTo(2 * MS);
    }

    @Test
    void aShadowAnswerIsProgressOfItsLeaf() {
        DetachedRootScript script = script(3);
        // Leaf 2 slow for over 2 s and 20 answers against its peers: on probation.
        long t = script.ticker.nanoTime();
        for (int i = 0; i < 25; i++) {
            for (int leaf = 0; leaf < 3; leaf++) {
                script.cluster.probation().record(leaf, leaf == 2 ? 100 * MS : MS, t);
            }
        }
        script.cluster.probation().evaluate(t);
        script.ticker.advance(Duration.ofMillis(2_100));
        t = script.ticker.nanoTime();
        for (int i = 0; i < 25; i++) {
            for (int leaf = 0; leaf < 3; leaf++) {
                script.cluster.probation().record(leaf, leaf == 2 ? 100 * MS : MS, t);
            }
        }
        script.cluster.probation().evaluate(t);
        assertThat(script.cluster.probation().onProbation(2)).as("leaf 2 on probation").isTrue();

        script.search(ZERO);
        DetachedRoot.Copy shadow = script.sent.stream().filter(c -> c.kind() == SubRequestTrace.Kind.SHADOW)
                .findFirst().orElseThrow(() -> new AssertionError("a shadow to leaf 2: " + script.sent));
        assertThat(shadow.leaf()).isEqualTo(2);
        script.ticker.advance(Duration.ofMillis(5));
        script.answer(shadow, Status.OK, MS);

        assertThat(script.root.progress(2).doneSince(shadow.sentNanos()))
                .as("the shadow's answer is work its leaf did (the canary check reads it), as a connection books it")
                .isTrue();
    }
}
