package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import io.hedgerow.root.LinkRelay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write is not held by the catch-up of a replica that stopped answering (as a leaf paused with
 * SIGSTOP: its connection stays open, nothing comes back). The catch-up runs beside the writes
 * ({@link ReplicaCatchUp#advance}); when it ran between batches, a write queued just as it asked the
 * silent replica waited the whole replica timeout. The test sees the catch-up's request reach the
 * silent replica, then writes: the answer must come within half the replica timeout (in practice
 * milliseconds), where the old step order held it the full timeout. Real leaves over loopback, the
 * second behind a relay that can stop passing bytes on.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SilentReplicaCatchUpTest {
    /**
     * Long enough that half of it is a generous bound for an answer that takes milliseconds; short,
     * as the test waits it out once for the copy to the silent replica (20 s cost CI 20 s).
     */
    private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(8);

    @Test
    void aWriteIsAnsweredWhileTheCatchUpWaitsForASilentReplica(@TempDir Path data) throws Exception {
        try (RelayedPair pair = new RelayedPair(data, "silent", 1, REPLICA_TIMEOUT)) {
            PartitionWriter writer = pair.writer;
            LinkRelay relay = pair.relay;
            assertThat(pair.send(WriteKind.UPSERT, "both").get(REPLICA_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .getOutcome()).isEqualTo(WriteOutcome.CREATED);

            relay.stop();
            // The copy to the silent replica times out and it leaves the in-sync set.
            assertThat(pair.send(WriteKind.UPSERT, "leaves").get(REPLICA_TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)
                    .getOutcome()).isEqualTo(WriteOutcome.CREATED);
            assertThat(writer.replicas().inSyncCount()).isEqualTo(1);

            relay.arrivals.drainPermits();
            // Within three timeouts: a probe that came before the drain is answered by its timeout, and the next asks again.
            assertThat(relay.arrivals.tryAcquire(REPLICA_TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS))
                    .as("the catch-up asks the silent replica").isTrue();
            WriteResult beside = pair.send(WriteKind.UPSERT, "beside").get(REPLICA_TIMEOUT.toMillis() / 2,
                    TimeUnit.MILLISECONDS);
            assertThat(beside.getOutcome()).isEqualTo(WriteOutcome.CREATED);
        }
    }
}
