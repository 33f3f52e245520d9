package io.hedgerow.leaf.server;

import static io.hedgerow.leaf.server.LaneGate.NOT_WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the expensive lane may run, scripted on a manual clock: 10 ms aging, half the time, 1 ms slices. */
class LaneGateTest {
    private static final int INTERACTIVE = Priority.INTERACTIVE_VALUE;
    private static final int BATCH = Priority.BATCH_VALUE;
    private static final int NONE_WAITING = -1;
    private static final long MS = 1_000_000;

    private final ManualTicker ticker = new ManualTicker();
    private final LaneGate gate = new LaneGate(Duration.ofMillis(10), 0.5, Duration.ofMillis(1), 1);

    @Test
    void withoutCheapWorkTheLaneRunsAndNeverStepsAside() {
        assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).isTrue();
        gate.laneRunning(0, now());
        for (int slice = 0; slice < 20; slice++) {
            ticker.advanceMillis(1);
            assertThat(gate.stepsAside(0, INTERACTIVE, NONE_WAITING, now())).isFalse();
        }
    }

    @Test
    void higherClassCheapWorkHoldsTheLaneBackAtMostItsMaximumWaitThenLetsItRun() {
        gate.cheapStarted(INTERACTIVE); // a steady stream of interactive work: something always runs
        long since = now();
        assertThat(gate.mayRun(0, BATCH, NONE_WAITING, NOT_WAITING, since)).as("just came").isFalse();
        assertThat(gate.waitLeftNanos(0, BATCH, NONE_WAITING, NOT_WAITING, since)).isEqualTo(10 * MS);

        ticker.advanceMillis(9);
        assertThat(gate.mayRun(0, BATCH, NONE_WAITING, since, now())).as("credit does not count against a higher class")
                .isFalse();
        assertThat(gate.waitLeftNanos(0, BATCH, NONE_WAITING, since, now())).isEqualTo(MS);

        ticker.advanceMillis(1);
        assertThat(gate.mayRun(0, BATCH, NONE_WAITING, since, now())).as("waited 10 ms").isTrue();
        assertThat(gate.waitLeftNanos(0, BATCH, NONE_WAITING, since, now())).as("never a wait of 0").isEqualTo(1);
        gate.laneRunning(0, now());
        ticker.advanceMillis(1);
        assertThat(gate.stepsAside(0, BATCH, NONE_WAITING, now())).as("after one slice").isTrue();
    }

    @Test
    void cheapWorkOfTheLanesOwnClassSharesTheTimeHalfAndHalf() {
        gate.cheapStarted(INTERACTIVE); // a saturated leaf: cheap interactive work always runs
        long since = now();
        assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, since))
                .as("fresh from idle: as if it had just run a slice").isFalse();
        assertThat(gate.waitLeftNanos(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, since)).as("half a slice of debt, earned at half speed")
                .isEqualTo(MS);

        long ran = 0;
        long start = now();
        for (int cycle = 0; cycle < 50; cycle++) {
            long waitingSince = now();
            ticker.advance(Duration.ofNanos(gate.waitLeftNanos(0, INTERACTIVE, NONE_WAITING, waitingSince, now())));
            assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, waitingSince, now())).isTrue();
            gate.laneRunning(0, now());
            do {
                ticker.advanceMillis(1);
                ran += MS;
            } while (!gate.stepsAside(0, INTERACTIVE, NONE_WAITING, now()));
            assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).as("its share used").isFalse();
        }
        assertThat((double) ran / (now() - start)).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.02));
    }

    @Test
    void ownClassWorkWaitingForAWorkerCountsAsWorkThereAndLowerClassWorkDoesNot() {
        assertThat(gate.ownClassThere(INTERACTIVE, INTERACTIVE)).isTrue();
        assertThat(gate.higherClassThere(BATCH, INTERACTIVE)).isTrue();
        assertThat(gate.higherClassThere(INTERACTIVE, BATCH)).isFalse();
        assertThat(gate.ownClassThere(INTERACTIVE, BATCH)).isFalse();
        gate.cheapStarted(BATCH);
        assertThat(gate.higherClassThere(INTERACTIVE, NONE_WAITING)).isFalse();
        assertThat(gate.ownClassThere(INTERACTIVE, NONE_WAITING)).isFalse();
        assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).isTrue();
    }

    @Test
    void aLongWaitEarnsAtMostOneSliceOfCredit() {
        gate.cheapStarted(INTERACTIVE);
        long since = now();
        assertThat(gate.mayRun(0, BATCH, NONE_WAITING, NOT_WAITING, since)).isFalse();
        ticker.advanceMillis(10); // held by the higher class for its maximum wait, earning all along
        assertThat(gate.mayRun(0, BATCH, NONE_WAITING, since, now())).isTrue();
        assertThat(gate.credit(0)).isEqualTo(MS);

        gate.cheapEnded(INTERACTIVE);
        gate.cheapStarted(BATCH);
        gate.laneRunning(0, now());
        ticker.advanceMillis(2);
        assertThat(gate.stepsAside(0, BATCH, NONE_WAITING, now())).as("1 ms of credit covers 2 ms at half").isFalse();
        ticker.advanceMillis(1);
        assertThat(gate.stepsAside(0, BATCH, NONE_WAITING, now())).isTrue();
    }

    @Test
    void anIdleWorkerStartsAfreshAndEarnsNothingWhileIdle() {
        gate.laneRunning(0, now());
        gate.laneStopped(0, now());
        gate.laneIdle(0, now());
        ticker.advanceMillis(100);
        gate.cheapStarted(INTERACTIVE);
        assertThat(gate.mayRun(0, INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).isFalse();
        assertThat(gate.credit(0)).isEqualTo(-0.5 * MS);
    }

    @Test
    void refusesAnEndWithoutAStartAndAShareOutsideItsRange() {
        gate.cheapStarted(BATCH);
        gate.cheapEnded(BATCH);
        assertThatThrownBy(() -> gate.cheapEnded(BATCH)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cheapEnded: no cheap batch task runs (expected: one end per start)");
        assertThatThrownBy(() -> new LaneGate(Duration.ofMillis(10), 1, Duration.ofMillis(1), 1))
                .hasMessage("share: 1.0 (expected: above 0 and below 1)");
    }

    private long now() {
        return ticker.nanoTime();
    }
}
