package io.hedgerow.loadgen.durability;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.loadgen.durability.Op.Kind;
import io.hedgerow.loadgen.durability.Op.Type;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DurabilityReportTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void countsSecondsWithoutAnAcknowledgedWriteAndTheThroughput() {
        History history = History.of(List.of(
                Op.complete(0, Type.OK, Kind.ADD, "a", SECOND / 2, ""),
                Op.nemesis(Kind.FAULT_START, "leaf", SECOND, "kill primary of partition 0: leaf 1 (pid 9)"),
                Op.complete(0, Type.INFO, Kind.ADD, "b", 2 * SECOND + 1, "timeout"), // not a success: second 2 stays dark
                Op.complete(1, Type.OK, Kind.DELETE, "a", 3 * SECOND + 5, ""),
                Op.complete(1, Type.OK, Kind.ADD, "c", 3 * SECOND + 7, ""),
                Op.nemesis(Kind.FAULT_START, "leaf", 3 * SECOND, "failed: no pid file")));

        DurabilityReport report = DurabilityReport.of(history, 5 * SECOND);

        assertThat(report.unavailableSeconds()).as("seconds 1, 2 and 4").isEqualTo(3);
        assertThat(report.writesPerSecond()).isEqualTo(3 / 5.0);
        assertThat(report.faults()).as("the failed strike does not count").isEqualTo(1);
    }
}
