package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.PartitionStore;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leaf started with a cluster secret serves only connections whose Hello carries it: anything
 * else is answered with the reason and the connection is closed, before any assignment or search.
 */
class LeafSecretTest {
    private static final String INDEX = "secret";
    private static final int PARTITIONS = 2;
    private static final String SECRET = "0123456789abcdef-the-cluster-secret";

    @TempDir
    static Path indexParent;

    private static PartitionStore store;

    private final List<Socket> sockets = new ArrayList<>();
    private LeafServer leaf;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(indexParent.resolve(INDEX), INDEX, PARTITIONS);
    }

    @BeforeEach
    void start() throws IOException {
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withClusterSecret(SECRET));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        leaf.close();
    }

    @Test
    void refusesAHelloWithoutTheSecretAndCloses() throws IOException {
        FrameSocket root = TestLeaves.open(leaf, sockets);
        root.send(Protocol.rootHello(FrameSocket.ROOT_ID));

        HelloAck ack = root.receive().getHelloAck();
        assertThat(ack.getError()).contains("sent no cluster secret", "expected: the cluster's shared secret");
        assertThat(ack.hasIndex()).as("an index identity is no secret, but nothing else is told").isTrue();
        assertThatThrownBy(root::receive).isInstanceOf(EOFException.class);
        assertThat(leaf.openPartitions()).isEmpty();
    }

    @Test
    void refusesTheWrongSecretAndCloses() throws IOException {
        FrameSocket root = TestLeaves.open(leaf, sockets);
        root.send(Protocol.rootHello(FrameSocket.ROOT_ID, "0123456789abcdef-another-secret"));

        HelloAck ack = root.receive().getHelloAck();
        assertThat(ack.getError()).contains("wrong cluster secret").doesNotContain(SECRET);
        // Closed at once: an assignment sent after it would find no connection to reach the leaf on.
        assertThatThrownBy(root::receive).isInstanceOf(EOFException.class);
        assertThat(leaf.openPartitions()).isEmpty();
    }

    @Test
    void refusesAnAssignmentBeforeAnyHelloAndCloses() throws IOException {
        FrameSocket root = TestLeaves.open(leaf, sockets);
        root.send(assignment());

        assertThat(root.receive().getAssignAck().getError())
                .contains("no Hello with the cluster secret before ASSIGN", "expected: a Hello carrying the cluster's shared secret first");
        assertThatThrownBy(root::receive).isInstanceOf(EOFException.class);
        assertThat(leaf.openPartitions()).isEmpty();
    }

    @Test
    void refusesASearchBeforeAnyHelloAndCloses() throws IOException {
        FrameSocket root = TestLeaves.open(leaf, sockets);
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(7).setPartition(0)
                .setQuery("body:meadow").setK(3)).build());

        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(answer.getError()).contains("no Hello with the cluster secret before SEARCH");
        assertThatThrownBy(root::receive).isInstanceOf(EOFException.class);
    }

    @Test
    void refusesATwinCancelConnectionWithoutTheSecret() throws IOException {
        FrameSocket peer = TestLeaves.open(leaf, sockets);

        assertThat(peer.helloForTwinCancels().getError()).contains("sent no cluster secret");
        assertThatThrownBy(peer::receive).isInstanceOf(EOFException.class);
    }

    @Test
    void servesARootThatSaysTheSecret() throws IOException {
        FrameSocket root = TestLeaves.open(leaf, sockets);
        root.send(Protocol.rootHello(FrameSocket.ROOT_ID, SECRET));
        assertThat(root.receive().getHelloAck().getError()).isEmpty();
        root.send(assignment());
        assertThat(root.receive().getAssignAck().getError()).isEmpty();

        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(8).setPartition(0)
                .setQuery("body:meadow").setK(3)).build());
        assertThat(root.receive().getResult().getStatus()).isEqualTo(Status.OK);
        assertThat(leaf.openPartitions()).containsExactlyInAnyOrder(0, 1);
    }

    private static Frame assignment() {
        return Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).addPartitions(1)).build();
    }
}
