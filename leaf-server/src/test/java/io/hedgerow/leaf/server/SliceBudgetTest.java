package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A search's slices on a manual work clock: what is left of a slice, and what the search cost over its stretches. */
class SliceBudgetTest {
    private static final long SLICE = Duration.ofMillis(1).toNanos();
    private final ManualTicker work = new ManualTicker();

    @Test
    void theWorkBeforeTheFirstStepCountsAgainstTheFirstSlice() {
        SliceBudget budget = new SliceBudget(work, SLICE);
        work.advance(Duration.ofMillis(1).dividedBy(4)); // parsing and the cost estimate

        assertThat(budget.sliceLeft()).isEqualTo(SLICE * 3 / 4);
        work.advanceMillis(2);
        assertThat(budget.sliceLeft()).as("an overrun leaves nothing, not less than nothing").isZero();
        assertThat(budget.slices()).isEqualTo(1);
    }

    @Test
    void aSliceKeptForLackOfWaitingWorkStartsAFreshBudget() {
        SliceBudget budget = new SliceBudget(work, SLICE);
        work.advanceMillis(1);
        assertThat(budget.sliceLeft()).isZero();

        budget.nextSlice();

        assertThat(budget.sliceLeft()).isEqualTo(SLICE);
        assertThat(budget.slices()).as("still the same worker's turn").isEqualTo(1);
    }

    @Test
    void countsOnlyTheStretchesOnAWorkerNotTheWaitsBetweenThem() {
        SliceBudget budget = new SliceBudget(work, SLICE);
        work.advanceMillis(1);
        budget.paused();
        work.advanceMillis(50); // parked in the queue: another task's work on this clock
        budget.resumed();
        assertThat(budget.sliceLeft()).as("a new slice on the new stretch").isEqualTo(SLICE);
        work.advanceMillis(2);
        budget.paused();
        budget.paused(); // answering after a yield attempt pauses again: counted once

        assertThat(budget.cpuNanos()).isEqualTo(Duration.ofMillis(3).toNanos());
        assertThat(budget.slices()).isEqualTo(2);
    }

    @Test
    void aZeroBudgetRunsTheWholeSearchInOneSliceAndANegativeOneIsRefused() {
        SliceBudget unsliced = new SliceBudget(work, 0);
        work.advanceMillis(500);
        assertThat(unsliced.sliceLeft()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> new SliceBudget(work, -1)).hasMessage("sliceNanos: -1 (expected: >= 0)");
    }

    @Test
    void onALaneWorkerTheSlicesAreTheLanesButAnUnslicedSearchStaysUnsliced() {
        SliceBudget budget = new SliceBudget(work, SLICE);
        budget.useLaneSlices(SLICE / 4);
        work.advance(Duration.ofNanos(SLICE / 8));
        assertThat(budget.sliceLeft()).isEqualTo(SLICE / 8);

        SliceBudget unsliced = new SliceBudget(work, 0);
        unsliced.useLaneSlices(SLICE / 4);
        assertThat(unsliced.sliceLeft()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> budget.useLaneSlices(0)).hasMessage("laneSliceNanos: 0 (expected: > 0)");
    }
}
