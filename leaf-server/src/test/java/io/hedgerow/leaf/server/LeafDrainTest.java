package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leaf's graceful close, over real sockets: it stops taking connections, tells its roots it is
 * draining, refuses new searches and fetches as draining (BUSY, so the root retries elsewhere),
 * answers what it holds, and only then closes the connection; a drain timeout bounds the wait.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeafDrainTest {
    private static final String INDEX = "drain";
    private static final int PARTITIONS = 2;
    private static final Duration HOLD = Duration.ofSeconds(50);

    @RegisterExtension
    static final RealLeaves leaves = RealLeaves.hedgerowIndex(INDEX, PARTITIONS).firstRequestId(100);

    private LeafServer start(Duration drainTimeout) throws IOException {
        return leaves.start(leaves.config().withWorkers(1).withFaultInjection(true)
                .withDrainTimeout(drainTimeout));
    }

    @Test
    void answersWhatItHoldsRefusesNewWorkAsDrainingAndClosesOnlyThen() throws Exception {
        LeafServer leaf = start(Duration.ofSeconds(30));
        FrameSocket root = leaves.root(leaf);
        assertThat(inject(root, FaultKind.DELAY, HOLD).getInjectAck().getError()).isEmpty();
        SearchRequest held = request(0);
        root.send(Frame.newBuilder().setSearch(held).build());
        Eventually.await(() -> leaf.delaysInjected() >= 1, "the only worker to hold the search");

        CompletableFuture<Void> closing = CompletableFuture.runAsync(leaf::close);

        Frame notice = root.receive();
        assertThat(notice.getBodyCase()).as("the root is told first").isEqualTo(Frame.BodyCase.DRAINING);
        assertThat(notice.getDraining().getReason()).contains(leaf.address(), "shutting down");
        assertThat(notice.getDraining().getTimeoutNanos()).isEqualTo(Duration.ofSeconds(30).toNanos());
        assertThat(leaf.isDraining()).isTrue();
        assertThatThrownBy(() -> new Socket("127.0.0.1", leaf.port()).close()).as("no new connections")
                .isInstanceOf(ConnectException.class);

        SearchRequest late = request(1);
        root.send(Frame.newBuilder().setSearch(late).build());
        SearchResponse refused = root.receive().getResult();
        assertThat(refused.getRequestId()).isEqualTo(late.getRequestId());
        assertThat(refused.getStatus()).as("retried on another replica, as any BUSY").isEqualTo(Status.BUSY);
        assertThat(refused.getError()).startsWith(Protocol.DRAINING);
        long fetchId = leaves.nextRequestId();
        root.send(Frame.newBuilder().setFetch(FetchRequest.newBuilder().setRequestId(fetchId).setQuery("body:meadow")
                .setStoredFields(true).addItems(FetchItem.newBuilder().setPartition(0).setDoc(0))).build());
        FetchResponse refusedFetch = root.receive().getFetchResult();
        assertThat(refusedFetch.getRequestId()).isEqualTo(fetchId);
        assertThat(refusedFetch.getStatus()).isEqualTo(Status.BUSY);
        assertThat(refusedFetch.getError()).startsWith(Protocol.DRAINING);
        assertThat(leaf.counters().drainRefusals()).isEqualTo(2);
        assertThat(closing).as("still holding the search").isNotDone();

        // Let the held search finish: it is answered, and only then does the connection close.
        assertThat(inject(root, FaultKind.DELAY, Duration.ZERO).getInjectAck().getError()).isEmpty();
        SearchResponse answered = root.receive().getResult();
        assertThat(answered.getRequestId()).isEqualTo(held.getRequestId());
        assertThat(answered.getStatus()).isEqualTo(Status.OK);
        assertThatThrownBy(root::receive).isInstanceOf(EOFException.class);
        closing.get(30, TimeUnit.SECONDS);
    }

    @Test
    void closesUnderWorkStillHeldWhenTheDrainTimeoutPasses() throws Exception {
        LeafServer leaf = start(Duration.ofMillis(200));
        FrameSocket root = leaves.root(leaf);
        assertThat(inject(root, FaultKind.STALL, HOLD).getInjectAck().getError()).isEmpty();
        root.send(Frame.newBuilder().setSearch(request(0)).build());
        Eventually.await(() -> leaf.counters().snapshot().stallHolds() >= 1, "the only worker to hold the search");

        leaf.close();

        assertThat(root.receive().getBodyCase()).isEqualTo(Frame.BodyCase.DRAINING);
        assertThatThrownBy(root::receive).as("closed without the held answer").isInstanceOf(EOFException.class);
    }

    @Test
    void closesAtOnceWithoutADrainTimeout() throws Exception {
        LeafServer leaf = start(Duration.ZERO);
        FrameSocket root = leaves.root(leaf);

        leaf.close();

        assertThatThrownBy(root::receive).as("no draining notice").isInstanceOf(EOFException.class);
        assertThat(leaf.isDraining()).isFalse();
    }

    private SearchRequest request(int partition) {
        return SearchRequest.newBuilder().setRequestId(leaves.nextRequestId()).setPartition(partition).setQuery("body:meadow")
                .setK(3).build();
    }

    /** A delay on every sub-request, or a stall every HOLD + 1 s, of {@code length} (zero clears). */
    private Frame inject(FrameSocket root, FaultKind kind, Duration length) throws IOException {
        InjectFault.Builder injection = InjectFault.newBuilder().setRequestId(leaves.nextRequestId()).setKind(kind)
                .setDelayNanos(length.toNanos()).setProbability(1.0).setDurationNanos(Duration.ofMinutes(1).toNanos());
        if (kind == FaultKind.STALL) {
            injection.setPeriodNanos(length.plusSeconds(1).toNanos());
        }
        root.send(Frame.newBuilder().setInject(injection).build());
        return root.receive();
    }
}
