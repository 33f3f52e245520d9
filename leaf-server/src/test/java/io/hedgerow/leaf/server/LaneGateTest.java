package io.hedgerow.leaf.server;

import static io.hedgerow.leaf.server.LaneGate.NOT_WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the expensive lane may run, scripted: 10 ms aging on a manual clock, half the CPU, 1 ms slices. */
class LaneGateTest {
    private static final int INTERACTIVE = Priority.INTERACTIVE_VALUE;
    private static final int BATCH = Priority.BATCH_VALUE;
    private static final int NONE_WAITING = -1;
    private static final long MS = 1_000_000;

    private final ManualTicker ticker = new ManualTicker();
    private final LaneGate gate = new LaneGate(Duration.ofMillis(10), 0.5, Duration.ofMillis(1));

    @Test
    void withoutCheapWorkTheLaneRunsOnButRunsIntoDebtToStepAsideWhenSomeComes() {
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).isTrue();
        for (int slice = 0; slice < 20; slice++) {
            gate.laneRan(MS);
            assertThat(gate.stepsAside(INTERACTIVE, NONE_WAITING)).isFalse();
        }
        assertThat(gate.credit()).as("at most four slices' worth").isEqualTo(-2.0 * MS);
        assertThat(gate.stepsAside(INTERACTIVE, INTERACTIVE)).as("cheap work comes").isTrue();
    }

    @Test
    void higherClassCheapWorkHoldsTheLaneBackAtMostItsMaximumWaitThenLetsItRun() {
        gate.cheapStarted(INTERACTIVE); // a steady stream of interactive work: something always runs
        long since = now();
        assertThat(gate.mayRun(BATCH, NONE_WAITING, NOT_WAITING, since)).as("just came").isFalse();
        assertThat(gate.waitLeftNanos(NOT_WAITING, since)).isEqualTo(10 * MS);

        ticker.advanceMillis(9);
        assertThat(gate.mayRun(BATCH, NONE_WAITING, since, now())).isFalse();
        assertThat(gate.waitLeftNanos(since, now())).isEqualTo(MS);

        ticker.advanceMillis(1);
        assertThat(gate.mayRun(BATCH, NONE_WAITING, since, now())).as("waited 10 ms").isTrue();
        assertThat(gate.waitLeftNanos(since, now())).as("never a wait of 0").isEqualTo(1);
        gate.laneRan(MS);
        assertThat(gate.stepsAside(BATCH, NONE_WAITING)).as("after one slice").isTrue();
    }

    @Test
    void cheapWorkOfTheLanesOwnClassSharesTheCpuHalfAndHalf() {
        long laneCpu = 0;
        long cheapCpu = 0;
        for (int round = 0; round < 1000; round++) {
            // Cheap tasks of 0.25 ms end one after the other; the lane runs 1 ms slices whenever the gate lets it.
            gate.cheapStarted(INTERACTIVE);
            if (gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, now())) {
                do {
                    gate.laneRan(MS);
                    laneCpu += MS;
                } while (!gate.stepsAside(INTERACTIVE, NONE_WAITING));
            }
            gate.cheapEnded(INTERACTIVE, 250_000, true);
            cheapCpu += 250_000;
        }
        assertThat((double) laneCpu / (laneCpu + cheapCpu)).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void theLaneStepsAsideForCheapWorkOnlyOnceItHasSpentItsShare() {
        gate.cheapStarted(INTERACTIVE);
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).as("nothing owed yet").isTrue();
        gate.laneRan(MS);
        assertThat(gate.credit()).isEqualTo(-0.5 * MS);
        assertThat(gate.stepsAside(INTERACTIVE, NONE_WAITING)).isTrue();
        assertThat(gate.stepsAside(INTERACTIVE, BATCH)).as("cheap work of a lower class does not count").isTrue();

        gate.cheapEnded(INTERACTIVE, MS / 2, true);
        assertThat(gate.credit()).isEqualTo(-0.25 * MS);
        assertThat(gate.mayRun(INTERACTIVE, INTERACTIVE, NOT_WAITING, now())).as("cheap work still waits").isFalse();
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, now())).as("none left: runs").isTrue();
        assertThat(gate.mayRun(INTERACTIVE, BATCH, NOT_WAITING, now())).as("batch waiting: runs").isTrue();

        gate.cheapStarted(INTERACTIVE);
        gate.cheapEnded(INTERACTIVE, 10 * MS, false);
        assertThat(gate.credit()).as("no lane work there: nothing owed").isZero();
    }

    @Test
    void cheapWorkThatOutrunsWaitingLaneWorkIsHeldBackUntilTheLaneHasHadItsShare() {
        gate.cheapStarted(INTERACTIVE);
        gate.cheapStarted(INTERACTIVE);
        gate.cheapEnded(INTERACTIVE, 800_000, true); // lane work waits: the lane is owed 0.4 ms
        assertThat(gate.credit()).isEqualTo(0.4 * MS);
        assertThat(gate.holdsCheapBack(INTERACTIVE, INTERACTIVE)).as("owed less than half a slice").isFalse();
        gate.cheapStarted(INTERACTIVE);
        gate.cheapEnded(INTERACTIVE, 200_000, true);
        assertThat(gate.holdsCheapBack(INTERACTIVE, INTERACTIVE)).as("owed half a slice, another worker runs cheap work")
                .isTrue();
        assertThat(gate.holdsCheapBack(INTERACTIVE, BATCH)).as("lower-class lane work is owed nothing by it").isFalse();
        assertThat(gate.holdsCheapBack(BATCH, INTERACTIVE)).isTrue();

        gate.cheapEnded(INTERACTIVE, 0, true);
        assertThat(gate.holdsCheapBack(INTERACTIVE, INTERACTIVE)).as("no other worker runs cheap work").isFalse();

        gate.cheapStarted(INTERACTIVE);
        gate.laneStarted(INTERACTIVE);
        assertThat(gate.holdsCheapBack(INTERACTIVE, NONE_WAITING)).as("lane work runs").isTrue();
        gate.laneRan(MS); // spends half of it
        assertThat(gate.credit()).isZero();
        assertThat(gate.holdsCheapBack(INTERACTIVE, NONE_WAITING)).isFalse();
        gate.laneStopped(INTERACTIVE);
    }

    @Test
    void theLaneIsOwedAtMostAFewSlicesAndNothingOnceItHasNoWork() {
        gate.cheapStarted(INTERACTIVE);
        gate.cheapEnded(INTERACTIVE, 100 * MS, true);
        assertThat(gate.credit()).isEqualTo(2.0 * MS);
        gate.laneStarted(INTERACTIVE);
        gate.laneIdle();
        assertThat(gate.credit()).as("another lane worker still runs").isEqualTo(2.0 * MS);
        gate.laneStopped(INTERACTIVE);
        gate.laneIdle();
        assertThat(gate.credit()).isZero();
        assertThatThrownBy(() -> gate.laneStopped(BATCH)).isInstanceOf(IllegalStateException.class)
                .hasMessage("laneStopped: no batch lane task runs (expected: one stop per start)");
    }

    @Test
    void refusesAnEndWithoutAStartAndAShareOutsideItsRange() {
        gate.cheapStarted(BATCH);
        gate.cheapEnded(BATCH, 0, false);
        assertThatThrownBy(() -> gate.cheapEnded(BATCH, 0, false)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cheapEnded: no cheap batch task runs (expected: one end per start)");
        assertThatThrownBy(() -> new LaneGate(Duration.ofMillis(10), 1, Duration.ofMillis(1)))
                .hasMessage("share: 1.0 (expected: above 0 and below 1)");
    }

    private long now() {
        return ticker.nanoTime();
    }
}
