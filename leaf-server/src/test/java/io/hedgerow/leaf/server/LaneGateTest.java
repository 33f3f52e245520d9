package io.hedgerow.leaf.server;

import static io.hedgerow.leaf.server.LaneGate.NOT_WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.Priority;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When the expensive lane may run, scripted on a manual clock. */
class LaneGateTest {
    private static final int INTERACTIVE = Priority.INTERACTIVE_VALUE;
    private static final int BATCH = Priority.BATCH_VALUE;
    private static final int NONE_WAITING = -1;

    private final ManualTicker ticker = new ManualTicker();
    private final LaneGate gate = new LaneGate(Duration.ofMillis(10));

    @Test
    void opensOnlyWhileNoCheapWorkOfItsClassOrAHigherOneRunsOrWaits() {
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, ticker.nanoTime())).isTrue();

        gate.cheapStarted(INTERACTIVE);
        assertThat(gate.holdsBack(INTERACTIVE, NONE_WAITING)).as("cheap work runs").isTrue();
        assertThat(gate.holdsBack(BATCH, NONE_WAITING)).as("lower lane work waits too").isTrue();
        gate.cheapEnded(INTERACTIVE);
        assertThat(gate.holdsBack(INTERACTIVE, NONE_WAITING)).isFalse();

        assertThat(gate.holdsBack(INTERACTIVE, INTERACTIVE)).as("cheap work waits for a worker").isTrue();
        assertThat(gate.holdsBack(INTERACTIVE, BATCH)).as("cheap batch does not hold back interactive lane work")
                .isFalse();
        gate.cheapStarted(BATCH);
        assertThat(gate.holdsBack(INTERACTIVE, NONE_WAITING)).as("nor does it while it runs").isFalse();
        assertThat(gate.holdsBack(BATCH, NONE_WAITING)).isTrue();
    }

    @Test
    void holdsTheLaneBackAtMostItsMaximumWaitThenLetsItRunASlice() {
        gate.cheapStarted(INTERACTIVE); // a steady stream of cheap work: something always runs
        long since = ticker.nanoTime();
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, NOT_WAITING, since)).as("just came").isFalse();
        assertThat(gate.waitLeftNanos(NOT_WAITING, since)).isEqualTo(10_000_000);

        ticker.advanceMillis(9);
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, since, ticker.nanoTime())).isFalse();
        assertThat(gate.waitLeftNanos(since, ticker.nanoTime())).isEqualTo(1_000_000);

        ticker.advanceMillis(1);
        assertThat(gate.mayRun(INTERACTIVE, NONE_WAITING, since, ticker.nanoTime())).as("waited 10 ms").isTrue();
        assertThat(gate.waitLeftNanos(since, ticker.nanoTime())).as("never a wait of 0").isEqualTo(1);
    }

    @Test
    void refusesAnEndWithoutAStart() {
        gate.cheapStarted(BATCH);
        gate.cheapEnded(BATCH);
        assertThatThrownBy(() -> gate.cheapEnded(BATCH)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cheapEnded: no cheap batch task runs (expected: one end per start)");
    }
}
