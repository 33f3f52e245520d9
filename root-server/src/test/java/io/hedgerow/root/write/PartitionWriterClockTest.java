package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.RebuildRefusal;
import io.hedgerow.root.Await;
import io.hedgerow.root.cluster.StaleReplicas;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A partition's writer times its catch-ups on its own clock, the backoff after a refused rebuild
 * included. The replica's leaf refuses every rebuild (its copy fed during the pull): with the
 * writer's clock standing still, more than the backoff passes in real time and the next catch-up
 * round asks no rebuild; once the writer's clock passes the backoff, a round asks one. Before, the
 * writer built its {@link ReplicaCatchUp} without its ticker, so the backoff ran on the real clock.
 * Leaves written by hand ({@link ScriptedReplicas}).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PartitionWriterClockTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void theBackoffAfterARefusedRebuildRunsOnTheWritersClock() throws Exception {
        try (ScriptedReplicas leaves = new ScriptedReplicas(RebuildRefusal.FED_DURING_PULL, "fed during the pull")) {
            ManualTicker ticker = new ManualTicker().advance(Duration.ofHours(1));
            PartitionWriter writer = new PartitionWriter(0, leaves.links(), new int[] {0, 1}, new StaleReplicas(1, 2),
                    WriteSettings.defaults(), ticker, new WriteMeters(new SimpleMeterRegistry()));
            try {
                // The replicas compared, then a catch-up round: leaf 1 is behind the trimmed log, refused.
                roundsUntil(writer, "the first RESTORE", () -> leaves.restores.get() == 1);

                // Real time must pass the backoff (a second after a first refusal) to tell the clocks apart.
                Thread.sleep(1_200);
                int probes = leaves.probesOfOne.get();
                // Two more rounds started: the first of them ran to its end, wholly after that second.
                roundsUntil(writer, "two more catch-up rounds", () -> leaves.probesOfOne.get() >= probes + 2);
                assertThat(leaves.restores).as("no rebuild asked: the writer's clock stood still").hasValue(1);

                ticker.advance(Duration.ofSeconds(1));
                roundsUntil(writer, "a RESTORE once the writer's clock passed the backoff",
                        () -> leaves.restores.get() == 2);
            } finally {
                writer.close();
            }
        }
    }

    /** Asks the writer for a catch-up round (it starts one unless one runs) until {@code done}. */
    private static void roundsUntil(PartitionWriter writer, String what, BooleanSupplier done) throws Exception {
        Await.until(what, PATIENCE, () -> {
            if (done.getAsBoolean()) {
                return true;
            }
            writer.catchUpSoon();
            return false;
        });
    }
}
