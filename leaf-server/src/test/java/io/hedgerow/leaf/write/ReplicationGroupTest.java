package io.hedgerow.leaf.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.time.ManualTicker;
import io.hedgerow.common.wire.proto.ReplicaFailure;
import io.hedgerow.common.wire.proto.ReplicaTarget;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.WriteOp;
import io.hedgerow.common.wire.proto.WriteRequest;
import io.hedgerow.common.wire.proto.WriteResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary's copies, scripted on a manual clock with links that answer when the test says: the
 * copies to one replica go one at a time in the order queued, a copy's timeout counts from its
 * queueing, a tracked replica gets every later batch until it fails one (a restarted primary too,
 * within its term), and a newer term tracks none.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReplicationGroupTest {
    private static final long TIMEOUT_NANOS = Duration.ofSeconds(3).toNanos();
    private static final ReplicaTarget SECOND = ReplicaTarget.newBuilder().setNode("second").setAddress("10.0.0.2:9001")
            .build();
    private static final ReplicaTarget THIRD = ReplicaTarget.newBuilder().setNode("third").setAddress("10.0.0.3:9001")
            .build();

    /** A copy sent to an address, answered when the test completes {@code answer}. */
    private record Sent(String address, WriteRequest request, CompletableFuture<WriteResponse> answer) {
    }

    private final ManualTicker ticker = new ManualTicker();
    private final List<Sent> sent = new ArrayList<>();
    private final ReplicationGroup group = new ReplicationGroup(ticker);

    ReplicationGroupTest() {
        group.links(links());
    }

    private static WriteRequest batch(long seq) {
        return WriteRequest.newBuilder().setPartition(0).addOps(WriteOp.newBuilder().setId("doc-" + seq).setSeq(seq))
                .build();
    }

    private static WriteResponse ok() {
        return WriteResponse.newBuilder().setStatus(Status.OK).build();
    }

    @Test
    void copiesToOneReplicaGoOneAtATimeInTheOrderQueued() throws Exception {
        CompletableFuture<List<ReplicaFailure>> first = group.copy(0, 1, List.of(SECOND), batch(1), TIMEOUT_NANOS);
        CompletableFuture<List<ReplicaFailure>> second = group.copy(0, 1, List.of(SECOND), batch(2), TIMEOUT_NANOS);
        assertThat(sent).as("seq 2 waits for seq 1's answer").hasSize(1);
        assertThat(sent.get(0).request().getOps(0).getSeq()).isEqualTo(1);

        sent.get(0).answer().complete(ok());
        assertThat(first).isCompletedWithValue(List.of());
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).request().getOps(0).getSeq()).isEqualTo(2);
        sent.get(1).answer().complete(ok());
        assertThat(second).isCompletedWithValue(List.of());
    }

    @Test
    void aCopyQueuedBehindASilentReplicaFailsWithinItsOwnTimeoutNotAfterTheOnesAhead() throws Exception {
        group.copy(0, 1, List.of(SECOND), batch(1), TIMEOUT_NANOS);
        ticker.advance(Duration.ofSeconds(1));
        CompletableFuture<List<ReplicaFailure>> behind = group.copy(0, 1, List.of(SECOND), batch(2), TIMEOUT_NANOS);

        // At t=3 s the first copy times out (as the link answers it); the second was queued at t=1 s.
        ticker.advance(Duration.ofSeconds(3));
        sent.get(0).answer().completeExceptionally(new IOException("no answer in 3 s"));
        assertThat(sent).as("the queued copy's time is up: not sent").hasSize(1);
        assertThat(behind).isCompleted();
        assertThat(behind.join()).singleElement().satisfies(failure -> {
            assertThat(failure.getNode()).isEqualTo("second");
            assertThat(failure.getTracked()).isFalse();
            assertThat(failure.getProblem()).contains("copy timeout");
        });
    }

    @Test
    void aTrackedReplicaGetsEveryLaterBatchUntilItFailsOne() throws Exception {
        CompletableFuture<ReplicaFailure> finished = group.finish(0, 1, THIRD, List.of(batch(1)), TIMEOUT_NANOS);
        assertThat(group.tracked(0)).containsExactly("third");
        CompletableFuture<List<ReplicaFailure>> next = group.copy(0, 1, List.of(SECOND), batch(2), TIMEOUT_NANOS);
        sent.get(0).answer().complete(ok()); // the log to the third
        assertThat(finished).isCompletedWithValue(null);
        assertThat(sent).extracting(Sent::address).containsExactly(THIRD.getAddress(), SECOND.getAddress(),
                THIRD.getAddress());

        sent.get(1).answer().complete(ok());
        sent.get(2).answer().complete(WriteResponse.newBuilder().setStatus(Status.ERROR)
                .setError(LivePartition.DIVERGED + "it holds other ops").build());
        assertThat(next.join()).singleElement().satisfies(failure -> {
            assertThat(failure.getNode()).isEqualTo("third");
            assertThat(failure.getTracked()).isTrue();
            assertThat(failure.getDiverged()).isTrue();
        });
        assertThat(group.tracked(0)).as("a failed replica is no longer tracked").isEmpty();
        group.copy(0, 1, List.of(SECOND), batch(3), TIMEOUT_NANOS);
        assertThat(sent).hasSize(4);
        assertThat(sent.get(3).address()).isEqualTo(SECOND.getAddress());
    }

    @Test
    void aNewerTermTracksNone() throws Exception {
        group.finish(0, 1, THIRD, List.of(), TIMEOUT_NANOS);
        assertThat(group.tracked(0)).containsExactly("third");
        group.copy(0, 2, List.of(SECOND), batch(1), TIMEOUT_NANOS);
        assertThat(group.tracked(0)).isEmpty();
        assertThat(sent).extracting(Sent::address).containsExactly(SECOND.getAddress());
    }

    @Test
    void aPrimaryRestartedInItsTermStillCopiesToTheReplicasItTracked(@TempDir Path dir) throws Exception {
        TrackedFiles files = new TrackedFiles(partition -> dir.resolve("partition-" + partition), WalFiles.SYSTEM);
        ReplicationGroup before = new ReplicationGroup(ticker, files);
        before.links(links());
        before.finish(0, 3, THIRD, List.of(), TIMEOUT_NANOS);

        ReplicationGroup restarted = new ReplicationGroup(ticker, files);
        restarted.links(links());
        restarted.open(0, 3);
        assertThat(restarted.tracked(0)).containsExactly("third");
        restarted.copy(0, 3, List.of(SECOND), batch(1), TIMEOUT_NANOS);
        assertThat(sent).extracting(Sent::address).containsExactly(SECOND.getAddress(), THIRD.getAddress());

        ReplicationGroup promotedAgain = new ReplicationGroup(ticker, files);
        promotedAgain.open(0, 4);
        assertThat(promotedAgain.tracked(0)).as("another term's tracking is not this one's").isEmpty();
    }

    private PeerWrites links() {
        return (address, request, timeoutNanos) -> {
            CompletableFuture<WriteResponse> answer = new CompletableFuture<>();
            sent.add(new Sent(address, request, answer));
            return answer;
        };
    }
}
