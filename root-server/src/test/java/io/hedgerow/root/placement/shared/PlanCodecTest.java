package io.hedgerow.root.placement.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.root.placement.Placement;
import io.hedgerow.root.placement.PlacementPlan;
import io.hedgerow.root.placement.PlacementPlan.PlannedCopy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The placement znode's JSON: every copy's leaf, reason and state, and the target versions, read back as written. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlanCodecTest {
    @Test
    void readsBackEveryCopyInEveryStateAndTheTargetVersions() {
        PlacementPlan plan = new PlacementPlan(List.of(
                List.of(new PlannedCopy(0, Placement.Reason.ORIGINAL, Placement.CopyState.SERVING),
                        new PlannedCopy(2, Placement.Reason.RE_REPLICATION, Placement.CopyState.CATCHING_UP)),
                List.of(new PlannedCopy(1, Placement.Reason.HOT, Placement.CopyState.OPENING),
                        new PlannedCopy(2, Placement.Reason.REBALANCE, Placement.CopyState.RETIRING))),
                List.of(3L, 0L, 7L));

        StoredPlan read = PlanCodec.decode(PlanCodec.encode("root-1@127.0.0.1:8080", plan), 5);

        assertThat(read).isEqualTo(new StoredPlan("root-1@127.0.0.1:8080", plan, 5));
        assertThat(read.plan().keptCopies(1)).containsExactly(1);
    }

    @Test
    void refusesBytesThatAreNotAPlanNamingWhatWasExpected() {
        assertThatThrownBy(() -> PlanCodec.decode("{\"leader\":\"x\"}".getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: an object with leader");
        assertThatThrownBy(() -> PlanCodec.decode(("{\"leader\":\"x\",\"partitions\":[[{\"leaf\":4,\"reason\":"
                + "\"original\",\"state\":\"serving\"}]],\"target_versions\":[0]}").getBytes(StandardCharsets.UTF_8), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaf 4");
    }
}
