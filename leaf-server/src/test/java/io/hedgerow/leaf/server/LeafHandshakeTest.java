package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.hedgerow.common.logging.LogCapture;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.ConnectionRole;
import io.hedgerow.common.wire.proto.FaultKind;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hello;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.write.LiveSettings;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaf's side of the handshake, spoken by hand over a socket: the Hello's protocol version, the
 * index identity in the answer, and what a refused connection gets (nothing served, a reason in
 * every answer and one line in the leaf's log).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class LeafHandshakeTest {
    private static final String INDEX = "handshake";
    private static final int PARTITIONS = 2;

    @TempDir
    static Path indexParent;

    private static PartitionStore store;

    private final List<Socket> sockets = new ArrayList<>();
    private LogCapture handlerLog;
    private LeafServer leaf;

    @BeforeAll
    static void buildIndex() throws IOException {
        store = TestLeaves.hedgerowIndex(indexParent.resolve(INDEX), INDEX, PARTITIONS);
    }

    @BeforeEach
    void start() throws IOException {
        handlerLog = LogCapture.of(LeafConnectionHandler.class, Level.WARN);
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withFaultInjection(true));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        leaf.close();
        handlerLog.close();
    }

    @Test
    void answersAHelloWithItsVersionAndItsIndexsIdentity() throws IOException {
        HelloAck ack = TestLeaves.open(leaf, sockets).hello(FrameSocket.ROOT_ID);

        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getProtocolVersion()).isEqualTo(Protocol.VERSION);
        assertThat(ack.getIndex().getName()).isEqualTo(INDEX);
        assertThat(ack.getIndex().getPartitions()).isEqualTo(PARTITIONS);
        assertThat(ack.getIndex()).isEqualTo(IndexIdentities.of(store.readManifest()));
        assertThat(IndexIdentities.manifestOf(ack.getIndex())).as("the manifest travels, checked against its hash")
                .isEqualTo(store.readManifest());
        assertThat(handlerLog.messages()).isEmpty();
    }

    /**
     * A leaf that registers in membership names the node id it registers under in its HelloAck (its
     * {@code --node-id}, or host_port), which a root compares with the node membership knows at the
     * address; one that does not register names none. Before, no leaf named one, so a root took any
     * process at the address for the leaf it knew.
     */
    @Test
    void namesTheNodeItRegistersUnderInItsHelloAck() throws IOException {
        assertThat(TestLeaves.open(leaf, sockets).hello(FrameSocket.ROOT_ID).getNodeId()).as("not registering: none")
                .isEmpty();
        assertThat(leaf.announceNodeId().value()).isEqualTo("127.0.0.1_" + leaf.port());
        assertThat(TestLeaves.open(leaf, sockets).hello(FrameSocket.ROOT_ID).getNodeId())
                .as("unnamed: host_port, as LeafMembership registers it").isEqualTo("127.0.0.1_" + leaf.port());
        try (LeafServer named = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1)
                .withLive(LiveSettings.defaults().withNodeId("leaf-7")))) {
            named.announceNodeId();
            assertThat(TestLeaves.open(named, sockets).hello(FrameSocket.ROOT_ID).getNodeId()).as("its --node-id")
                    .isEqualTo("leaf-7");
        }
    }

    @Test
    void refusesAHelloOfAnotherVersionNamingBothAndServesNothingOnThatConnection() throws IOException {
        leaf.announceNodeId();
        FrameSocket newer = TestLeaves.open(leaf, sockets);
        newer.send(Frame.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(Protocol.VERSION + 1)
                .setRole(ConnectionRole.ROOT).setRootId(FrameSocket.ROOT_ID)).build());

        HelloAck ack = newer.receive().getHelloAck();
        String expected = "speaks hedgerow protocol " + (Protocol.VERSION + 1) + ", this leaf speaks " + Protocol.VERSION;
        assertThat(ack.getError()).contains(expected);
        assertThat(ack.getProtocolVersion()).as("so the root can say which versions met").isEqualTo(Protocol.VERSION);
        assertThat(ack.getNodeId()).as("named only to a peer it serves").isEmpty();
        assertThat(handlerLog.messages()).singleElement().asString().contains("refusing the connection from", expected);

        newer.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(3).setIndexName(INDEX)
                .addPartitions(0)).build());
        assertThat(newer.receive().getAssignAck().getError()).contains("this leaf refused the connection", expected);
        assertThat(leaf.openPartitions()).as("nothing opened for it").isEmpty();
        SearchResponse search = search(newer, 4);
        assertThat(search.getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(search.getError()).contains(expected);
        newer.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(5).setKind(FaultKind.DELAY)
                .setDelayNanos(Duration.ofSeconds(1).toNanos()).setProbability(1).setDurationNanos(Duration.ofMinutes(1)
                        .toNanos())).build());
        assertThat(newer.receive().getInjectAck().getError()).contains(expected);
        assertThat(leaf.injectedDelay()).isEmpty();

        FrameSocket current = TestLeaves.root(leaf, sockets, FrameSocket.ROOT_ID, INDEX, PARTITIONS);
        assertThat(search(current, 6).getStatus()).as("a root of this version is served").isEqualTo(Status.OK);
    }

    @Test
    void refusesARootFromBeforeVersionsWhichOpensWithAnAssignment() throws IOException {
        FrameSocket old = TestLeaves.open(leaf, sockets);
        old.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).addPartitions(1)).build());

        AssignAck ack = old.receive().getAssignAck();
        assertThat(ack.getError()).contains("speaks hedgerow protocol 0 (from before versions), this leaf speaks "
                + Protocol.VERSION);
        assertThat(ack.getPartitionsList()).isEmpty();
        assertThat(leaf.openPartitions()).isEmpty();
        assertThat(handlerLog.messages()).singleElement().asString().contains("protocol 0");
        // A root of protocol 0 marked such a leaf ready anyway: its searches are refused, so it tries a replica.
        assertThat(search(old, 2).getStatus()).isEqualTo(Status.NOT_ASSIGNED);
    }

    @Test
    void refusesARootWithoutAnId() throws IOException {
        FrameSocket anonymous = TestLeaves.open(leaf, sockets);
        anonymous.send(Frame.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(Protocol.VERSION)
                .setRole(ConnectionRole.ROOT)).build());

        assertThat(anonymous.receive().getHelloAck().getError()).contains("root_id 0");
        assertThat(search(anonymous, 1).getStatus()).isEqualTo(Status.NOT_ASSIGNED);
    }

    @Test
    void aSearchBeforeAnyHelloIsNotServed() throws IOException {
        FrameSocket rude = TestLeaves.open(leaf, sockets);
        SearchResponse answer = search(rude, 1);
        assertThat(answer.getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(answer.getError()).contains("expected: a Hello first");
    }

    @Test
    void closesAConnectionThatSaysHelloTwice() throws IOException {
        FrameSocket twice = TestLeaves.open(leaf, sockets);
        assertThat(twice.hello(FrameSocket.ROOT_ID).getError()).isEmpty();
        twice.send(Protocol.rootHello(FrameSocket.ROOT_ID));
        assertThatThrownBy(twice::receive).isInstanceOf(IOException.class);
        assertThat(handlerLog.messages()).singleElement().asString().contains("a second Hello");
    }

    private static SearchResponse search(FrameSocket root, long requestId) throws IOException {
        root.send(Frame.newBuilder().setSearch(SearchRequest.newBuilder().setRequestId(requestId).setPartition(0)
                .setQuery("body:meadow").setK(3)).build());
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(requestId);
        return answer;
    }
}
