package io.hedgerow.root.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.wire.Protocol;
import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.HelloAck;
import io.hedgerow.coordination.NodeId;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexIdentities;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.leaf.write.LiveSettings;
import io.hedgerow.root.Await;
import io.hedgerow.root.LinkRelay;
import io.hedgerow.root.RootServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterConfig;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.LeafAddress;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.cluster.SlotReuse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root's side of the handshake, against real leaves and leaves written by hand: a leaf of
 * another protocol version, of another index or partition count, or whose assignment failed, is
 * never ready, gets no traffic, and {@code /cluster} says why; the coverage of what the others
 * answer is honest about what is missing.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HandshakeTest {
    /** How long a test waits for the root to refuse, reconnect or become ready: a deadline, not a timing claim. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String INDEX = "handshake";
    private static final Duration SHORT_WAIT = Duration.ofMillis(200);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    /** Two builds of one index name with two partitions, and one with four. */
    private static PartitionStore buildA;
    private static PartitionStore buildB;
    private static PartitionStore fourPartitions;

    private final List<AutoCloseable> started = new ArrayList<>();

    @BeforeAll
    static void buildIndexes() throws IOException {
        buildA = build("a", 2, 1);
        buildB = build("b", 2, 2);
        fourPartitions = build("four", 4, 1);
    }

    private static PartitionStore build(String dir, int partitions, long seed) throws IOException {
        PartitionStore store = new PartitionStore(dataDir.resolve(dir));
        new IndexBuilder(IndexOptions.defaults().withPartitions(partitions), IndexProgress.none())
                .build(store, INDEX, IndexConfig.defaults(), TestData.documents(seed, 60));
        return store;
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void aRootConfiguredForFewerPartitionsThanTheIndexRefusesItsLeavesAndSaysWhy() throws Exception {
        LeafServer leaf = leaf(fourPartitions);
        RootServer root = root(ClusterConfig.of(INDEX, List.of(leaf.address()), 2, 1));

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        String expected = "leaf " + leaf.address() + " serves index '" + INDEX + "' with 4 partitions, this root is"
                + " configured for 2";
        assertThat(root.cluster().leaf(0).refusal()).contains(expected);
        assertThat(root.cluster().leaf(0).readyConnections()).isZero();
        assertThat(leaf.openPartitions()).as("nothing assigned to a refused leaf").isEmpty();
        JsonNode cluster = getCluster(root);
        assertThat(cluster.get("leaves").get(0).get("state").asText()).isEqualTo("down");
        assertThat(cluster.get("leaves").get(0).get("refused").asText()).contains(expected);

        // Not half the index with coverage 1.0: no answer at all, and the reason.
        assertThat(failure(root.client().search(SearchRequest.of("alpha")))).satisfies(e -> {
            assertThat(e.kind()).isEqualTo(SearchException.Kind.UNAVAILABLE);
            assertThat(e.getMessage()).contains("/cluster");
        });
    }

    @Test
    void aLeafServingAnotherBuildIsRefusedAndTheResultSaysWhatIsMissing() throws Exception {
        LeafServer right = leaf(buildA);
        LeafServer wrong = leaf(buildB);
        RootServer root = root(ClusterConfig.of(buildA.readManifest(), List.of(right.address(), wrong.address()), 1));

        Await.until("leaf 1 refused and leaf 0 ready", PATIENCE,
                () -> root.cluster().leaf(1).refusal() != null && root.cluster().leaf(0).readyConnections() > 0);
        assertThat(root.cluster().leaf(1).refusal()).contains("leaf " + wrong.address() + " serves another build of"
                + " index '" + INDEX + "'", "the index files this root was started with");
        assertThat(root.cluster().leaf(0).refusal()).isNull();

        SearchResult result = root.client().search(SearchRequest.of("alpha")).join();
        assertThat(result.tainted()).as("one of two partitions is on the refused leaf").isTrue();
        assertThat(result.coverage().partitionsAnswered()).isEqualTo(1);
        assertThat(result.coverage().docsFraction()).isLessThan(1.0);
    }

    @Test
    void aLeafOfAnotherProtocolVersionIsRefusedNamingBothVersions() throws Exception {
        FakeLeaf newer = fake(frame -> frame.hasHello() ? Frame.newBuilder().setHelloAck(HelloAck.newBuilder()
                .setProtocolVersion(Protocol.VERSION + 1).setIndex(identityA())).build() : null);
        RootServer root = root(ClusterConfig.of(INDEX, List.of(newer.address()), 2, 1));

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        assertThat(root.cluster().leaf(0).refusal()).isEqualTo("leaf " + newer.address() + " speaks hedgerow protocol "
                + (Protocol.VERSION + 1) + ", this root speaks " + Protocol.VERSION + " (expected: equal versions; mixed"
                + " versions refuse each other until the rolling restart is done)");
        assertThat(newer.searches()).isZero();
    }

    @Test
    void aLeafFromBeforeVersionsThatClosesOnTheHelloIsRefused() throws Exception {
        FakeLeaf old = fake(frame -> null); // protocol 0 closes a connection on a frame it does not know
        RootServer root = root(ClusterConfig.of(INDEX, List.of(old.address()), 2, 1));

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        assertThat(root.cluster().leaf(0).refusal()).contains("closed the connection without answering this root's"
                + " Hello", "a leaf from before protocol versions, 0, does that");
    }

    @Test
    void aLeafWhoseAssignmentFailedGetsNoTrafficAndIsTriedAgain() throws Exception {
        FakeLeaf failing = fake(frame -> switch (frame.getBodyCase()) {
            case HELLO -> Frame.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Protocol.VERSION)
                    .setIndex(identityA())).build();
            case ASSIGN -> Frame.newBuilder().setAssignAck(AssignAck.newBuilder()
                    .setRequestId(frame.getAssign().getRequestId())
                    .setError("could not open partition 1: disk on fire")).build();
            default -> null;
        });
        RootServer root = root(ClusterConfig.of(buildA.readManifest(), List.of(failing.address()), 1));

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        assertThat(root.cluster().leaf(0).refusal()).isEqualTo("leaf " + failing.address()
                + " failed its assignment: could not open partition 1: disk on fire");
        assertThat(root.cluster().leaf(0).readyConnections()).isZero();
        assertThat(failure(root.client().search(SearchRequest.of("alpha"))).kind())
                .isEqualTo(SearchException.Kind.UNAVAILABLE);
        assertThat(failing.searches()).as("no traffic to a leaf whose assignment failed").isZero();
        // closed, and reconnected after a backoff
        Await.until("a second connection after the close", PATIENCE, () -> failing.connectionsAccepted() >= 2);
    }

    @Test
    void aLeafThatDoesNotSayItTakesSeveralPartitionsInOneFrameGetsOneFramePerPartition() throws Exception {
        // As a leaf from before LeafSearchRequest: it closes the connection on a frame it does not know.
        AtomicInteger multiPartitionFrames = new AtomicInteger();
        FakeLeaf older = fake(frame -> switch (frame.getBodyCase()) {
            case HELLO -> Frame.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Protocol.VERSION)
                    .setIndex(identityOf(fourPartitions))).build();
            case ASSIGN -> Frame.newBuilder().setAssignAck(AssignAck.newBuilder()
                    .setRequestId(frame.getAssign().getRequestId())
                    .addAllPartitions(frame.getAssign().getPartitionsList().stream().map(p ->
                            io.hedgerow.common.wire.proto.PartitionInfo.newBuilder().setPartition(p).setDocCount(15)
                                    .build()).toList())).build();
            case SEARCH -> Frame.newBuilder().setResult(io.hedgerow.common.wire.proto.SearchResponse.newBuilder()
                    .setRequestId(frame.getSearch().getRequestId()).setPartition(frame.getSearch().getPartition())
                    .setStatus(io.hedgerow.common.wire.proto.Status.OK).setTotalHitsExact(true)).build();
            case SEARCH_PARTS -> {
                multiPartitionFrames.incrementAndGet();
                yield null;
            }
            default -> null;
        });
        RootServer root = root(ClusterConfig.of(fourPartitions.readManifest(), List.of(older.address()), 1)
                .withTail(io.hedgerow.root.tail.TailSettings.defaults().withCanaries(0)));
        Await.until("leaf 0 ready", PATIENCE, () -> root.cluster().leaf(0).readyConnections() > 0);

        SearchResult result = root.client().search(SearchRequest.builder("alpha").snippets(false).storedFields(false)
                .cache(false).build()).join();

        assertThat(result.tainted()).isFalse();
        assertThat(result.coverage().partitionsAnswered()).isEqualTo(4);
        assertThat(older.searches()).as("one SearchRequest frame per partition").isEqualTo(4);
        assertThat(multiPartitionFrames.get()).as("frames it does not know (it would close the connection)").isZero();
    }

    /**
     * The leaf at the address membership knows as node leaf-a died and another process, node leaf-b, took
     * its port: its Hello answer names leaf-b. The root refuses it, says so in /cluster, closes the
     * connection, and accepts it once membership names leaf-b there (it registered). Before, the root
     * did not ask: any leaf at the address was taken for the one it knew.
     */
    @Test
    void aLeafThatNamesAnotherNodeThanMembershipKnowsAtItsAddressIsRefusedUntilMembershipNamesIt() throws Exception {
        CountDownLatch membershipPublished = new CountDownLatch(1);
        FakeLeaf other = fake(frame -> switch (frame.getBodyCase()) {
            case HELLO -> {
                try {
                    membershipPublished.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield Frame.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Protocol.VERSION)
                        .setIndex(identityA()).setNodeId("leaf-b")).build();
            }
            case ASSIGN -> Frame.newBuilder().setAssignAck(AssignAck.newBuilder()
                    .setRequestId(frame.getAssign().getRequestId())
                    .addAllPartitions(frame.getAssign().getPartitionsList().stream().map(p ->
                            io.hedgerow.common.wire.proto.PartitionInfo.newBuilder().setPartition(p).setDocCount(30)
                                    .build()).toList())).build();
            default -> null;
        });
        RootServer root = root(ClusterConfig.of(buildA.readManifest(), List.of(other.address()), 1));
        root.cluster().publishMembership(registeredAs("leaf-a"));
        membershipPublished.countDown();

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        assertThat(root.cluster().leaf(0).refusal()).isEqualTo("leaf " + other.address() + " says it is node leaf-b,"
                + " but membership knows node leaf-a at that address (registered): another leaf process took the port;"
                + " refused until membership names it there (it registers, or the old node's slot is given up)");
        assertThat(root.cluster().leaf(0).readyConnections()).isZero();
        assertThat(getCluster(root).toString()).as("/cluster says why").contains("says it is node leaf-b");
        // closed, and said Hello again after a backoff
        Await.until("a second connection after the close", PATIENCE, () -> other.connectionsAccepted() >= 2);
        assertThat(root.cluster().leaf(0).readyConnections()).isZero();

        root.cluster().publishMembership(registeredAs("leaf-b"));
        Await.until("leaf 0 ready", PATIENCE, () -> root.cluster().leaf(0).readyConnections() > 0);
        assertThat(root.cluster().leaf(0).refusal()).isNull();
    }

    /**
     * As above, with a real leaf: started as node leaf-b, at the address membership knows as node
     * leaf-a, it names leaf-b in its Hello answer (held by a relay until the root has that view) and is
     * refused. Before, a real leaf named no node, and the root took it for leaf-a.
     */
    @Test
    void aRealLeafStartedAsAnotherNodeThanMembershipKnowsAtItsAddressIsRefused() throws Exception {
        LeafServer leaf = LeafServer.start(LeafConfig.defaults(buildA.dir()).withWorkers(1)
                .withLive(LiveSettings.defaults().withNodeId("leaf-b")));
        started.add(leaf);
        leaf.announceNodeId(); // as a leaf started with --zk does
        LinkRelay relay = new LinkRelay(leaf.port());
        started.add(relay);
        relay.holdFirstAnswers(0);
        RootServer root = root(ClusterConfig.of(buildA.readManifest(), List.of(relay.address()), 1));
        root.cluster().publishMembership(registeredAs("leaf-a"));
        relay.release();

        Await.until("leaf 0 refused", PATIENCE, () -> root.cluster().leaf(0).refusal() != null);
        assertThat(root.cluster().leaf(0).refusal()).startsWith("leaf " + relay.address() + " says it is node leaf-b,"
                + " but membership knows node leaf-a at that address");
        assertThat(root.cluster().leaf(0).readyConnections()).isZero();
    }

    /**
     * A connect to a slot's old leaf is still unanswered when another leaf takes the slot over (review42b
     * finding 3): the old process answers after the reuse. The root closes that connection (it was dialled
     * to the old address) and dials the slot's new address; the old leaf gets no assignment. Before, the
     * old process's answer made the slot ready, and the new leaf's assignment and searches went to it.
     */
    @Test
    void aConnectInFlightWhenItsSlotIsReusedIsClosedAndTheNewAddressDialled() throws Exception {
        CountDownLatch reused = new CountDownLatch(1);
        AtomicInteger oldAssigns = new AtomicInteger();
        AtomicInteger newAssigns = new AtomicInteger();
        FakeLeaf old = fake(frame -> answerAs("leaf-old", frame, oldAssigns, reused));
        FakeLeaf replacement = fake(frame -> answerAs("leaf-new", frame, newAssigns, null));
        LeafServer listed = leaf(buildA);
        RootServer root = root(ClusterConfig.of(buildA.readManifest(), List.of(listed.address()), 1).withLeafSlots(2));
        ClusterState cluster = root.cluster();
        LeafAddress oldAddress = LeafAddress.parse(old.address());
        assertThat(cluster.fillSlot(oldAddress)).isEqualTo(1);
        Await.until("the old leaf dialled", PATIENCE, () -> old.connectionsAccepted() > 0);

        // Its leaf left membership for good; the slot holds nothing and no connection to it is ready.
        cluster.publishMembership(membership(
                new MembershipView.Member(MembershipView.State.GONE, NodeId.of("leaf-old"), 0)));
        assertThat(cluster.fillSlot(LeafAddress.parse(replacement.address()), 1_000, SlotReuse.of(Duration.ZERO)))
                .as("the slot is reused").isEqualTo(1);
        cluster.publishMembership(membership(new MembershipView.Member(MembershipView.State.NOT_REGISTERED, null, -1)));
        reused.countDown(); // the old process answers the Hello it was sent before the reuse

        Await.until(() -> "slot 1 ready: " + cluster.leaf(1).lastError(), PATIENCE,
                () -> cluster.leaf(1).readyConnections() > 0);
        assertThat(oldAssigns.get()).as("the old leaf got no assignment").isZero();
        assertThat(newAssigns.get()).as("the slot's new leaf got its assignment").isPositive();
        assertThat(cluster.leaf(1).announcedNode()).isEqualTo("leaf-new");
    }

    /** A fake leaf's answers as node {@code node}: its Hello answer waits for {@code answerHello} (when given). */
    private static Frame answerAs(String node, Frame frame, AtomicInteger assigns,
            CountDownLatch answerHello) {
        return switch (frame.getBodyCase()) {
            case HELLO -> {
                try {
                    if (answerHello != null) {
                        answerHello.await();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                yield Frame.newBuilder().setHelloAck(HelloAck.newBuilder().setProtocolVersion(Protocol.VERSION)
                        .setIndex(identityA()).setNodeId(node)).build();
            }
            case ASSIGN -> {
                assigns.incrementAndGet();
                yield Frame.newBuilder().setAssignAck(AssignAck.newBuilder().setRequestId(frame.getAssign().getRequestId()))
                        .build();
            }
            default -> null;
        };
    }

    /** Slot 0 registered as leaf-0, slot 1 as {@code second} says. */
    private static MembershipView membership(MembershipView.Member second) {
        return new MembershipView(true, List.of(new MembershipView.Member(MembershipView.State.REGISTERED,
                NodeId.of("leaf-0"), 0), second), List.of(), new long[2], false);
    }

    private static io.hedgerow.root.cluster.MembershipView registeredAs(String node) {
        return new io.hedgerow.root.cluster.MembershipView(true, List.of(new io.hedgerow.root.cluster.MembershipView.Member(
                io.hedgerow.root.cluster.MembershipView.State.REGISTERED, io.hedgerow.coordination.NodeId.of(node), 0)),
                List.of(), new long[2], false);
    }

    // ------------------------------------------------------------------ helpers

    private static io.hedgerow.common.wire.proto.IndexIdentity identityA() {
        return identityOf(buildA);
    }

    private static io.hedgerow.common.wire.proto.IndexIdentity identityOf(PartitionStore store) {
        try {
            return IndexIdentities.of(store.readManifest());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private LeafServer leaf(PartitionStore store) throws IOException {
        LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1));
        started.add(leaf);
        return leaf;
    }

    private FakeLeaf fake(FakeLeaf.Script script) throws IOException {
        FakeLeaf leaf = new FakeLeaf(script);
        started.add(leaf);
        return leaf;
    }

    private RootServer root(ClusterConfig config) throws IOException, InterruptedException {
        RootServer root = RootServer.start(config.withIoThreads(1), "127.0.0.1", 0, SHORT_WAIT);
        started.add(root);
        return root;
    }

    private static JsonNode getCluster(RootServer root) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + root.httpPort() + "/cluster")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return JSON.readTree(response.body());
        }
    }

    private static SearchException failure(java.util.concurrent.CompletableFuture<SearchResult> search) {
        try {
            search.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof SearchException searchException) {
                return searchException;
            }
            throw e;
        }
        throw new AssertionError("the search succeeded");
    }
}
