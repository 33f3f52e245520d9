package io.hedgerow.root.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.root.cluster.PartitionAssignment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The probation rule on a scripted clock. 4 leaves, 8 partitions, 2 replicas: p0: 0,2  p1: 1,3
 * p2: 2,1  p3: 3,0  p4: 0,2  p5: 1,3  p6: 2,1  p7: 3,1 (leaf 3 shares partitions with leaves 0 and 1).
 * Every leaf answers every 10 ms; the rule runs as the answers come (every 100 ms at most).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ProbationTest {
    private static final long MS = 1_000_000L;
    private static final AdaptationSettings SETTINGS = AdaptationSettings.defaults()
            .withProbationTiming(Duration.ofSeconds(2), Duration.ofSeconds(3), 20);
    private static final PartitionAssignment ASSIGNMENT = PartitionAssignment.spread(8, 4, 2);
    private static final IntPredicate ALL_SERVING = leaf -> true;

    private long now = 1_000 * MS;

    /** Every leaf answers once per 10 ms for {@code millis}, with these latencies. */
    private void answer(Probation probation, long millis, long... latencyMillis) {
        for (long t = 0; t < millis; t += 10) {
            now += 10 * MS;
            for (int leaf = 0; leaf < latencyMillis.length; leaf++) {
                if (latencyMillis[leaf] >= 0) {
                    probation.record(leaf, latencyMillis[leaf] * MS, now);
                }
            }
        }
    }

    @Test
    void goesOnProbationOnlyAfterBeingSlowForTheWholePeriod() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        long slowFrom = now;
        // The EWMA passes 3 x 2 ms after 3 answers; the rule sees it at its next run (within 100 ms).
        answer(probation, 2_000, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).as("slow for 2 s, counted from when the rule saw it").isFalse();
        assertThat(probation.state(3).onProbation()).isFalse();
        answer(probation, 400, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).isTrue();
        assertThat(probation.count()).isEqualTo(1);
        assertThat(probation.entered()).isEqualTo(1);
        assertThat(probation.state(3).reason()).startsWith("latency 20.0 ms, 10.0x the median 2.0 ms");
        assertThat(probation.state(3).sinceNanos() - slowFrom).isBetween(2_030 * MS, 2_210 * MS);
        assertThat(probation.onProbation(0) || probation.onProbation(1) || probation.onProbation(2)).isFalse();
    }

    /**
     * A slow leaf whose copies mostly lose to backups: one search in ten it finishes (20 ms), the other
     * nine the root's cancel stops it at 3 ms. Those 3 ms only bound its latency from below.
     */
    private void slowLeafMostlyCancelled(Probation probation, boolean cutShortAsLowerBound) {
        for (int i = 0; i < 400; i++) {
            now += 10 * MS;
            for (int leaf = 0; leaf < 3; leaf++) {
                probation.record(leaf, 2 * MS, now);
            }
            if (i % 10 == 0) {
                probation.record(3, 20 * MS, now);
            } else if (cutShortAsLowerBound) {
                probation.recordAtLeast(3, 3 * MS, now);
            } else {
                probation.record(3, 3 * MS, now);
            }
        }
    }

    /** Another leaf takes over slot 3 (its slow leaf left for good): it starts in rotation, with no latency. */
    @Test
    void aSlotTakenOverByAnotherLeafForgetsTheOldLeafsProbation() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 2_400, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).isTrue();

        probation.forget(3);
        assertThat(probation.onProbation(3)).isFalse();
        assertThat(probation.count()).isZero();
        assertThat(probation.latencyNanos(3)).isZero();
        assertThat(probation.entered()).as("what happened stays counted").isEqualTo(1);
        answer(probation, 1_000, 2, 2, 2, 2);
        assertThat(probation.onProbation(3)).as("the new leaf, as fast as its peers").isFalse();
    }

    @Test
    void answersCutShortByACancelNeverMakeASlowLeafLookFast() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        slowLeafMostlyCancelled(probation, true);
        assertThat(probation.onProbation(3)).as("the lower bounds under its EWMA say nothing").isTrue();
        assertThat(probation.latencyNanos(3)).isGreaterThan(15 * MS);

        // Taken as whole round trips, the same answers hide it: the EWMA stays under 3x the median.
        Probation fooled = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(fooled, 1_000, 2, 2, 2, 2);
        slowLeafMostlyCancelled(fooled, false);
        assertThat(fooled.onProbation(3)).isFalse();
    }

    @Test
    void aLowerBoundAboveTheEstimateRaisesIt() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        probation.recordAtLeast(0, 4 * MS, now);
        assertThat(probation.latencyNanos(0)).as("the first sample, whatever it is").isEqualTo(4.0 * MS);
        probation.recordAtLeast(0, 2 * MS, now);
        assertThat(probation.latencyNanos(0)).as("under the estimate: nothing").isEqualTo(4.0 * MS);
        probation.recordAtLeast(0, 14 * MS, now);
        assertThat(probation.latencyNanos(0)).as("above: an EWMA step").isCloseTo(5.0 * MS, org.assertj.core.data.Offset.offset(1.0));
    }

    @Test
    void aSlowBlipShorterThanThePeriodIsForgiven() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 1_500, 2, 2, 2, 20);
        answer(probation, 500, 2, 2, 2, 2); // back to normal before 2 s: the slow clock restarts
        answer(probation, 1_500, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).isFalse();
    }

    @Test
    void aLeafOnlyALittleSlowerInAbsoluteTermsStays() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        // 4x slower, but only 1.5 ms: below probationMinExcess (2 ms).
        answer(probation, 5_000, 0, 0, 0, -1);
        for (int i = 0; i < 500; i++) {
            now += 10 * MS;
            for (int leaf = 0; leaf < 3; leaf++) {
                probation.record(leaf, MS / 2, now);
            }
            probation.record(3, 2 * MS, now);
        }
        assertThat(probation.onProbation(3)).isFalse();
    }

    @Test
    void neverRemovesAPartitionsLastServingReplica() {
        // Leaf 1 is down: leaf 3's partitions p1, p5 and p7 have no other serving replica.
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, leaf -> leaf != 1);
        answer(probation, 1_000, 2, -1, 2, 2);
        answer(probation, 5_000, 2, -1, 2, 20);
        assertThat(probation.onProbation(3)).isFalse();
    }

    @Test
    void ofTwoSlowLeavesSharingAPartitionOnlyOneGoes() {
        // Leaves 0 and 3 share p3: both slow, but p3 keeps a replica in rotation.
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 5_000, 30, 2, 2, 30);
        assertThat(probation.onProbation(0) ^ probation.onProbation(3)).isTrue();
        assertThat(probation.count()).isEqualTo(1);
    }

    @Test
    void returnsAfterItsLatencyHasBeenNormalForTheRecoveryPeriod() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 3_000, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).isTrue();
        answer(probation, 5_000, 2, 2, 2, 20); // still slow under shadows: stays
        assertThat(probation.onProbation(3)).isTrue();
        answer(probation, 2_500, 2, 2, 2, 2); // normal for 2.5 s (the EWMA falls within ~0.5 s)
        assertThat(probation.onProbation(3)).isTrue();
        answer(probation, 1_200, 2, 2, 2, 2);
        assertThat(probation.onProbation(3)).isFalse();
        assertThat(probation.count()).isZero();
        assertThat(probation.state(3).reason()).isNull();
    }

    @Test
    void staysOnProbationWhileNoShadowAnswersCome() {
        Probation probation = new Probation(SETTINGS, ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 3_000, 2, 2, 2, 20);
        assertThat(probation.onProbation(3)).isTrue();
        answer(probation, 60_000, 2, 2, 2, -1); // nothing measures it: nothing says it is well
        assertThat(probation.onProbation(3)).isTrue();
    }

    @Test
    void theMedianOfPeersLeavesTheLeafItselfOut() {
        double[] sorted = {1, 2, 3, 10};
        assertThat(Probation.medianWithout(sorted, 4, 3)).isEqualTo(2); // without 10: 1, 2, 3
        assertThat(Probation.medianWithout(sorted, 4, 0)).isEqualTo(3); // without 1: 2, 3, 10
        assertThat(Probation.medianWithout(sorted, 4, -1)).isEqualTo(2.5);
        assertThat(Probation.medianWithout(sorted, 1, 0)).isNaN();
    }

    @Test
    void doesNothingWhenTurnedOff() {
        Probation probation = new Probation(SETTINGS.withProbation(false), ASSIGNMENT, ALL_SERVING);
        answer(probation, 1_000, 2, 2, 2, 2);
        answer(probation, 5_000, 2, 2, 2, 50);
        assertThat(probation.onProbation(3)).isFalse();
        assertThat(probation.enabled()).isFalse();
    }
}
