package io.hedgerow.root.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.WriteKind;
import io.hedgerow.common.wire.proto.WriteOutcome;
import io.hedgerow.common.wire.proto.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary that applied a batch and copied it to its replica, but whose answer never reached the
 * root (a cut link, a process paused after it wrote): the root sends the batch again to the replica
 * it makes primary, which already holds it. A delete then finds nothing to delete; answered as a
 * definite 404, the caller would believe the document still exists (the durability checker counted
 * such documents lost). The retry's refusal decided by the document's state is no answer: the caller
 * is told the outcome is unknown (503). Real leaves over loopback, the root's link to the primary
 * through a relay that drops the primary's answers.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LostAnswerRetryTest {
    private static final Duration REPLICA_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void aRetriedDeleteThatFindsNothingIsNoDefiniteNotFound(@TempDir Path data) throws Exception {
        try (RelayedPair pair = new RelayedPair(data, "lost-answer", 0, REPLICA_TIMEOUT)) {
            assertThat(pair.send(WriteKind.UPSERT, "heron").get(30, TimeUnit.SECONDS).getOutcome())
                    .isEqualTo(WriteOutcome.CREATED);

            pair.relay.stopAnswers();
            WriteResult deleted = pair.send(WriteKind.DELETE, "heron").get(60, TimeUnit.SECONDS);
            assertThat(deleted.getOutcome()).as(deleted.toString()).isEqualTo(WriteOutcome.REJECTED);
            assertThat(deleted.getError()).startsWith(PartitionWriter.UNAVAILABLE).contains("outcome is unknown");

            // The first send did delete it: the new primary holds no such document.
            WriteResult again = pair.send(WriteKind.DELETE, "heron").get(30, TimeUnit.SECONDS);
            assertThat(again.getOutcome()).as("a fresh batch's answer is definite").isEqualTo(WriteOutcome.NOT_FOUND);
        }
    }
}
