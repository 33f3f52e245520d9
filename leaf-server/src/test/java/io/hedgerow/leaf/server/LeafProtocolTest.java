package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.Cancel;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.FetchResponse;
import io.hedgerow.common.wire.proto.FetchedDoc;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.Hit;
import io.hedgerow.common.wire.proto.InjectFault;
import io.hedgerow.common.wire.proto.InjectFaultAck;
import io.hedgerow.common.wire.proto.PartitionInfo;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.common.wire.proto.StoredField;
import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaf's wire protocol, spoken by hand: a real {@link LeafServer} over a small index, and plain
 * sockets writing length-prefixed {@link Frame}s, so nothing of the root is involved.
 */
class LeafProtocolTest {
    private static final long SEED = 0x1EAF5L;
    private static final String INDEX = "protocol";
    private static final int DOCS = 240;
    private static final int PARTITIONS = 4;
    private static final String[] WORDS = {
        "meadow", "hawthorn", "blackbird", "brook", "hazel", "bramble", "oak", "thrush", "willow", "badger",
        "nettle", "sparrow", "ditch", "elder", "wren", "hedge", "field", "gate", "stile", "lane"};
    /** Only a leaf that never answers reaches it. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    static Path indexParent;

    private static PartitionStore store;
    private static Map<String, SourceDocument> documents;

    private LeafServer leaf;
    private final List<Socket> sockets = new ArrayList<>();
    private long nextRequestId = 100;

    @BeforeAll
    static void buildIndex() throws IOException {
        System.out.println("LeafProtocolTest documents from seed " + SEED);
        Random random = new Random(SEED);
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("title", words(random, 3));
            fields.put("body", words(random, 5 + random.nextInt(10)) + ". " + words(random, 5 + random.nextInt(10)) + ".");
            docs.add(new SourceDocument("doc-" + i, fields, i + 1));
        }
        documents = docs.stream().collect(Collectors.toMap(SourceDocument::id, doc -> doc));
        store = new PartitionStore(indexParent.resolve(INDEX));
        new IndexBuilder(IndexOptions.defaults().withPartitions(PARTITIONS), IndexProgress.none())
                .build(store, INDEX, IndexConfig.defaults(), docs);
    }

    @BeforeEach
    void startLeaf() throws IOException {
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(2));
    }

    @AfterEach
    void stopLeaf() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        leaf.close();
    }

    // ------------------------------------------------------------------ assignment

    @Test
    void acknowledgesAnAssignmentWithEachPartitionsDocCount() throws IOException {
        FrameSocket root = connect();
        root.send(assign(42, INDEX, 0, 1, 2, 3));

        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getRequestId()).isEqualTo(42);
        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getPartitionsList()).extracting(PartitionInfo::getPartition).containsExactly(0, 1, 2, 3);
        assertThat(ack.getPartitionsList()).extracting(PartitionInfo::getDocCount)
                .containsExactlyElementsOf(store.readManifest().partitionDocCounts());
        assertThat(ack.getPartitionsList().stream().mapToLong(PartitionInfo::getDocCount).sum()).isEqualTo(DOCS);
        assertThat(leaf.openPartitions()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void refusesAnAssignmentOfAnotherIndexNamingBoth() throws IOException {
        FrameSocket root = connect();
        root.send(assign(7, "elsewhere", 0, 1));

        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getRequestId()).isEqualTo(7);
        assertThat(ack.getError()).contains("'" + INDEX + "'", "'elsewhere'");
        assertThat(ack.getPartitionsList()).isEmpty();
        assertThat(leaf.openPartitions()).isEmpty();
    }

    @Test
    void servesTheValidPartitionsOfAnAssignmentAndNamesTheOthers() throws IOException {
        FrameSocket root = connect();
        root.send(assign(8, INDEX, 1, PARTITIONS + 3));

        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getPartitionsList()).extracting(PartitionInfo::getPartition).containsExactly(1);
        assertThat(ack.getError()).contains("partition " + (PARTITIONS + 3), "expected: 0.." + (PARTITIONS - 1));
        assertThat(leaf.openPartitions()).containsExactly(1);
    }

    @Test
    void closesPartitionsALaterAssignmentLeavesOut() throws IOException {
        FrameSocket root = connect();
        assignAll(root);
        root.send(assign(9, INDEX, 2));

        assertThat(root.receive().getAssignAck().getPartitionsList()).extracting(PartitionInfo::getPartition).containsExactly(2);
        assertThat(leaf.openPartitions()).containsExactly(2);
        assertThat(search(root, request(0, "body:meadow", 5)).getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(search(root, request(2, "body:meadow", 5)).getStatus()).isEqualTo(Status.OK);
    }

    // ------------------------------------------------------------------ search and fetch

    @Test
    void searchesOnePartitionInScoreOrderCountingEveryHit() throws IOException {
        FrameSocket root = connect();
        assignAll(root);
        for (int partition = 0; partition < PARTITIONS; partition++) {
            SearchRequest request = request(partition, "body:meadow", 5);
            SearchResponse response = search(root, request);

            assertThat(response.getStatus()).isEqualTo(Status.OK);
            assertThat(response.getRequestId()).isEqualTo(request.getRequestId());
            assertThat(response.getPartition()).isEqualTo(partition);
            assertThat(response.getCutShort()).isFalse();
            try (Directory dir = new MMapDirectory(store.partitionDir(partition));
                 DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                TermQuery query = new TermQuery(new Term("body", "meadow"));
                assertThat(response.getTotalHits()).as("partition %d", partition).isEqualTo(searcher.count(query)).isPositive();
                assertThat(response.getTotalHitsExact()).isTrue();

                TopDocs expected = searcher.search(query, 5);
                List<String> expectedIds = new ArrayList<>();
                for (ScoreDoc hit : expected.scoreDocs) {
                    expectedIds.add(searcher.storedFields().document(hit.doc).get("id"));
                }
                assertThat(response.getHitsList()).extracting(Hit::getId).containsExactlyElementsOf(expectedIds);
                assertThat(response.getHitsList()).extracting(Hit::getDoc)
                        .containsExactly(Arrays.stream(expected.scoreDocs).map(hit -> hit.doc).toArray(Integer[]::new));
                assertThat(response.getHitsList()).extracting(Hit::getScore)
                        .containsExactly(Arrays.stream(expected.scoreDocs).map(hit -> hit.score).toArray(Float[]::new))
                        .isSortedAccordingTo((a, b) -> Float.compare(b, a));
            }
        }
    }

    @Test
    void fetchesStoredFieldsAndSnippetsInRequestOrder() throws IOException {
        FrameSocket root = connect();
        assignAll(root);
        List<Hit> fromZero = search(root, request(0, "body:meadow", 3)).getHitsList();
        List<Hit> fromThree = search(root, request(3, "body:meadow", 3)).getHitsList();
        assertThat(fromZero).hasSize(3);
        assertThat(fromThree).hasSize(3);
        // Interleaved partitions, and within a partition not in doc order.
        List<Object[]> wanted = List.of(
                new Object[] {3, fromThree.get(2)}, new Object[] {0, fromZero.get(1)}, new Object[] {3, fromThree.get(0)},
                new Object[] {0, fromZero.get(2)}, new Object[] {0, fromZero.get(0)}, new Object[] {3, fromThree.get(1)});
        FetchRequest.Builder fetch = FetchRequest.newBuilder()
                .setRequestId(nextRequestId++).setQuery("body:meadow").setSnippets(true).setStoredFields(true);
        for (Object[] item : wanted) {
            fetch.addItems(FetchItem.newBuilder().setPartition((Integer) item[0]).setDoc(((Hit) item[1]).getDoc()));
        }

        root.send(Frame.newBuilder().setFetch(fetch).build());
        FetchResponse response = root.receive().getFetchResult();

        assertThat(response.getStatus()).as(response.getError()).isEqualTo(Status.OK);
        assertThat(response.getRequestId()).isEqualTo(fetch.getRequestId());
        assertThat(response.getDocsList()).hasSize(wanted.size());
        for (int i = 0; i < wanted.size(); i++) {
            FetchedDoc doc = response.getDocs(i);
            Hit hit = (Hit) wanted.get(i)[1];
            assertThat(doc.getPartition()).isEqualTo(wanted.get(i)[0]);
            assertThat(doc.getDoc()).isEqualTo(hit.getDoc());
            Map<String, String> fields = doc.getFieldsList().stream()
                    .collect(Collectors.toMap(StoredField::getName, StoredField::getValue));
            SourceDocument source = documents.get(hit.getId());
            assertThat(fields).containsOnlyKeys("title", "body")
                    .containsEntry("title", source.value("title"))
                    .containsEntry("body", source.value("body"));
            assertThat(doc.getSnippet()).contains("<b>meadow</b>");
        }
    }

    @Test
    void fetchesNoSnippetsOrFieldsWhenNotAsked() throws IOException {
        FrameSocket root = connect();
        assignAll(root);
        Hit hit = search(root, request(1, "body:meadow", 1)).getHits(0);

        root.send(Frame.newBuilder().setFetch(FetchRequest.newBuilder().setRequestId(nextRequestId++)
                .setQuery("body:meadow").addItems(FetchItem.newBuilder().setPartition(1).setDoc(hit.getDoc()))).build());
        FetchResponse response = root.receive().getFetchResult();

        assertThat(response.getStatus()).isEqualTo(Status.OK);
        assertThat(response.getDocs(0).getFieldsList()).isEmpty();
        assertThat(response.getDocs(0).getSnippet()).isEmpty();
    }

    // ------------------------------------------------------------------ refusals

    @Test
    void answersNotAssignedForAPartitionItDoesNotServe() throws IOException {
        FrameSocket root = connect();
        assertThat(search(root, request(1, "body:meadow", 5)).getStatus()).as("before any assignment").isEqualTo(Status.NOT_ASSIGNED);

        root.send(assign(1, INDEX, 0, 1));
        assertThat(root.receive().getAssignAck().getError()).isEmpty();
        SearchResponse response = search(root, request(3, "body:meadow", 5));

        assertThat(response.getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(response.getPartition()).isEqualTo(3);
        assertThat(response.getError()).contains("partition 3");
        assertThat(response.getHitsList()).isEmpty();

        FetchResponse fetch = fetch(root, FetchRequest.newBuilder().setQuery("body:meadow")
                .addItems(FetchItem.newBuilder().setPartition(0).setDoc(0))
                .addItems(FetchItem.newBuilder().setPartition(3).setDoc(0)));
        assertThat(fetch.getStatus()).isEqualTo(Status.NOT_ASSIGNED);
        assertThat(fetch.getError()).contains("partition 3");
    }

    @Test
    void answersBadQueryWithTheParsersMessage() throws IOException {
        FrameSocket root = connect();
        assignAll(root);

        SearchResponse response = search(root, request(0, "title:(foo", 5));

        assertThat(response.getStatus()).isEqualTo(Status.BAD_QUERY);
        assertThat(response.getError()).contains("Cannot parse", "title:(foo").doesNotContain("\n");
        assertThat(search(root, request(0, "body:meadow", 5)).getStatus()).isEqualTo(Status.OK);
    }

    @Test
    void answersExpiredWhenTheBudgetIsGoneBeforeAWorkerTakesIt() throws IOException {
        FrameSocket root = connect();
        assignAll(root);

        // One nanosecond: gone by the time a worker takes the task from the queue.
        SearchResponse search = search(root, request(0, "body:meadow", 5).toBuilder().setBudgetNanos(1).build());
        FetchResponse fetch = fetch(root, FetchRequest.newBuilder().setQuery("body:meadow").setBudgetNanos(1)
                .setStoredFields(true).addItems(FetchItem.newBuilder().setPartition(0).setDoc(0)));

        assertThat(search.getStatus()).isEqualTo(Status.EXPIRED);
        assertThat(search.getHitsList()).isEmpty();
        assertThat(fetch.getStatus()).isEqualTo(Status.EXPIRED);
        assertThat(fetch.getDocsList()).isEmpty();
        // A budget of zero means no deadline.
        assertThat(search(root, request(0, "body:meadow", 5).toBuilder().setBudgetNanos(0).build()).getStatus())
                .isEqualTo(Status.OK);
    }

    // ------------------------------------------------------------------ fault injection

    @Test
    void refusesFaultInjectionUnlessStartedWithIt() throws IOException {
        FrameSocket root = connect();
        assignAll(root);

        InjectFaultAck ack = inject(root, Duration.ofMillis(300), 1.0, Duration.ofSeconds(60));

        assertThat(ack.getError()).isEqualTo("fault injection is disabled on this leaf; start it with --fault-injection");
        assertThat(inject(root, Duration.ZERO, 0, Duration.ZERO).getError()).as("a clear too").contains("disabled");
        assertThat(search(root, request(0, "body:meadow", 5)).getStatus()).isEqualTo(Status.OK);
        assertThat(leaf.injectedDelay()).isEmpty();
        assertThat(leaf.delaysInjected()).isZero();
    }

    @Test
    void holdsEverySearchAndFetchForTheInjectedDelay() throws IOException {
        restartLeaf(LeafConfig.defaults(store.dir()).withWorkers(2).withFaultInjection(true));
        FrameSocket root = connect();
        assignAll(root);
        Hit hit = search(root, request(0, "body:meadow", 1)).getHits(0);

        InjectFaultAck ack = inject(root, Duration.ofMillis(300), 1.0, Duration.ofSeconds(60));
        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getSeed()).as("chosen by the leaf").isNotZero();
        assertThat(leaf.injectedDelay()).hasValueSatisfying(delay -> assertThat(delay.seed()).isEqualTo(ack.getSeed()));

        long sent = System.nanoTime();
        SearchResponse delayed = search(root, request(0, "body:meadow", 5));
        long searchNanos = System.nanoTime() - sent;
        // Lower bounds only: a loaded machine may add to a delay, never take from it.
        assertThat(delayed.getStatus()).isEqualTo(Status.OK);
        assertThat(delayed.getCutShort()).isFalse();
        assertThat(delayed.getHitsList()).isNotEmpty();
        assertThat(searchNanos).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(delayed.getServiceNanos()).as("the delay is service time").isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());

        FetchResponse fetch = fetch(root, FetchRequest.newBuilder().setQuery("body:meadow").setStoredFields(true)
                .addItems(FetchItem.newBuilder().setPartition(0).setDoc(hit.getDoc())));
        assertThat(fetch.getStatus()).isEqualTo(Status.OK);
        assertThat(fetch.getServiceNanos()).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(leaf.delaysInjected()).isEqualTo(2);

        assertThat(inject(root, Duration.ZERO, 0, Duration.ZERO).getError()).isEmpty();
        assertThat(leaf.injectedDelay()).isEmpty();
        assertThat(search(root, request(1, "body:meadow", 5)).getStatus()).isEqualTo(Status.OK);
        assertThat(leaf.delaysInjected()).as("nothing held after the clear").isEqualTo(2);
    }

    @Test
    void aCancelCutsADelayedRequestShortAndFreesTheWorker() throws IOException {
        restartLeaf(LeafConfig.defaults(store.dir()).withWorkers(1).withFaultInjection(true));
        FrameSocket root = connect();
        assignAll(root);
        assertThat(inject(root, Duration.ofSeconds(30), 1.0, Duration.ofSeconds(60)).getError()).isEmpty();

        SearchRequest held = request(0, "body:meadow", 5);
        root.send(frame(held));
        awaitDelaysInjected(1); // the only worker is now held
        root.send(Frame.newBuilder().setCancel(Cancel.newBuilder().setRequestId(held.getRequestId())).build());

        SearchResponse cut = root.receive().getResult();
        assertThat(cut.getRequestId()).isEqualTo(held.getRequestId());
        assertThat(cut.getCutShort()).isTrue();
        assertThat(cut.getServiceNanos()).as("well before the 30 s delay").isLessThan(Duration.ofSeconds(20).toNanos());

        assertThat(inject(root, Duration.ZERO, 0, Duration.ZERO).getError()).isEmpty();
        SearchResponse next = search(root, request(1, "body:meadow", 5));
        assertThat(next.getStatus()).isEqualTo(Status.OK);
        assertThat(next.getCutShort()).isFalse();
    }

    @Test
    void theDeadlineCutsADelayedRequestShort() throws IOException {
        restartLeaf(LeafConfig.defaults(store.dir()).withWorkers(1).withFaultInjection(true));
        FrameSocket root = connect();
        assignAll(root);
        assertThat(inject(root, Duration.ofSeconds(30), 1.0, Duration.ofSeconds(60)).getError()).isEmpty();

        long sent = System.nanoTime();
        SearchResponse cut = search(root, request(0, "body:meadow", 5).toBuilder()
                .setBudgetNanos(Duration.ofMillis(300).toNanos()).build());
        long tookNanos = System.nanoTime() - sent;

        assertThat(cut.getCutShort()).isTrue();
        assertThat(tookNanos).isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos()).isLessThan(Duration.ofSeconds(20).toNanos());
    }

    @Test
    void anInjectedDelayLapsesByItselfAfterItsDuration() throws IOException {
        restartLeaf(LeafConfig.defaults(store.dir()).withWorkers(2).withFaultInjection(true));
        FrameSocket root = connect();
        assignAll(root);

        assertThat(inject(root, Duration.ofSeconds(30), 1.0, Duration.ofMillis(200)).getError()).isEmpty();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (leaf.injectedDelay().isPresent()) {
            assertThat(System.nanoTime() - deadline).as("still delaying 20 s after a 200 ms injection").isNegative();
            Thread.onSpinWait();
        }

        assertThat(search(root, request(0, "body:meadow", 5)).getStatus()).isEqualTo(Status.OK);
        assertThat(leaf.delaysInjected()).isZero();
    }

    @Test
    void refusesAnOutOfRangeInjectionNamingTheValue() throws IOException {
        restartLeaf(LeafConfig.defaults(store.dir()).withFaultInjection(true));
        FrameSocket root = connect();

        InjectFaultAck ack = inject(root, Duration.ofMillis(5), 2.0, Duration.ofSeconds(1));

        assertThat(ack.getError()).isEqualTo("probability: 2.0 (expected: 0..1)");
        assertThat(leaf.injectedDelay()).isEmpty();
    }

    @Test
    void startsWithTheDelayItsConfigurationNames() throws IOException {
        InjectedDelay initial = new InjectedDelay(Duration.ofMillis(50).toNanos(), 0.05, Duration.ofMinutes(5).toNanos(), 11);
        restartLeaf(LeafConfig.defaults(store.dir()).withFaultInjection(true).withInitialDelay(initial));

        assertThat(leaf.injectedDelay()).contains(initial);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                () -> LeafConfig.defaults(store.dir()).withInitialDelay(initial)))
                .hasMessageContaining("initialDelay: 50ms with probability 0.05 for 5m (seed 11)")
                .hasMessageContaining("expected: none unless fault injection is enabled");
    }

    // ------------------------------------------------------------------ broken peers

    @Test
    void closesOnlyTheConnectionThatSentGarbage() throws IOException {
        FrameSocket good = connect();
        FrameSocket bad = connect();
        assignAll(good);
        assertThat(search(good, request(0, "body:meadow", 3)).getStatus()).isEqualTo(Status.OK);

        byte[] garbage = new byte[16];
        Arrays.fill(garbage, (byte) 0xFF); // an endless varint: no protobuf parser accepts it
        bad.out().writeInt(garbage.length);
        bad.out().write(garbage);
        bad.out().flush();

        assertThat(bad.in().read()).as("the leaf closed the connection").isEqualTo(-1);
        assertThat(search(good, request(1, "body:meadow", 3)).getStatus()).isEqualTo(Status.OK);
        assertThat(search(connect(), request(2, "body:meadow", 3)).getStatus()).as("a new connection").isEqualTo(Status.OK);
    }

    @Test
    void closesOnlyTheConnectionThatSentAFrameOnlyALeafSends() throws IOException {
        FrameSocket good = connect();
        FrameSocket confused = connect();
        assignAll(good);

        confused.send(Frame.newBuilder().setResult(SearchResponse.newBuilder().setRequestId(1)).build());

        assertThat(confused.in().read()).as("the leaf closed the connection").isEqualTo(-1);
        assertThat(search(good, request(1, "body:meadow", 3)).getStatus()).isEqualTo(Status.OK);
    }

    @Test
    void closesOnlyTheConnectionWhoseFrameIsOverTheLimit() throws IOException {
        leaf.close();
        int maxFrameBytes = 1024;
        leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1).withMaxFrameBytes(maxFrameBytes));
        FrameSocket good = connect();
        FrameSocket greedy = connect();
        assignAll(good);

        // A frame of exactly the limit (not counting its 4-byte length prefix) is served.
        SearchRequest atLimit = padded(request(0, "body:meadow", 3), maxFrameBytes);
        assertThat(frame(atLimit).getSerializedSize()).isEqualTo(maxFrameBytes);
        assertThat(search(good, atLimit).getStatus()).isEqualTo(Status.OK);

        // One byte more is refused from its length prefix alone, before any of it is sent.
        greedy.out().writeInt(maxFrameBytes + 1);
        greedy.out().flush();

        assertThat(greedy.in().read()).as("the leaf closed the connection").isEqualTo(-1);
        assertThat(search(good, request(1, "body:meadow", 3)).getStatus()).isEqualTo(Status.OK);
    }

    // ------------------------------------------------------------------ helpers

    private void restartLeaf(LeafConfig config) throws IOException {
        leaf.close();
        leaf = LeafServer.start(config);
    }

    private InjectFaultAck inject(FrameSocket root, Duration delay, double probability, Duration duration) throws IOException {
        long requestId = nextRequestId++;
        root.send(Frame.newBuilder().setInject(InjectFault.newBuilder().setRequestId(requestId)
                .setDelayNanos(delay.toNanos()).setProbability(probability).setDurationNanos(duration.toNanos())).build());
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.INJECT_ACK);
        assertThat(answer.getInjectAck().getRequestId()).isEqualTo(requestId);
        return answer.getInjectAck();
    }

    /** Waits until workers have taken {@code count} delays, i.e. are held by them. */
    private void awaitDelaysInjected(long count) {
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (leaf.delaysInjected() < count) {
            assertThat(System.nanoTime() - deadline).as("waiting for %d injected delays", count).isNegative();
            Thread.onSpinWait();
        }
    }



    /** A root's connection after its Hello. */
    private FrameSocket connect() throws IOException {
        FrameSocket root = connectWithoutHello();
        assertThat(root.hello(FrameSocket.ROOT_ID).getError()).isEmpty();
        return root;
    }

    private FrameSocket connectWithoutHello() throws IOException {
        Socket socket = new Socket("127.0.0.1", leaf.port());
        sockets.add(socket);
        socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
        socket.setTcpNoDelay(true);
        return FrameSocket.over(socket);
    }

    private static Frame assign(long requestId, String index, int... partitions) {
        return Frame.newBuilder().setAssign(AssignPartitions.newBuilder()
                .setRequestId(requestId)
                .setIndexName(index)
                .addAllPartitions(IntStream.of(partitions).boxed().toList())).build();
    }

    private void assignAll(FrameSocket root) throws IOException {
        root.send(assign(nextRequestId++, INDEX, IntStream.range(0, PARTITIONS).toArray()));
        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getPartitionsCount()).isEqualTo(PARTITIONS);
    }

    private SearchRequest request(int partition, String query, int k) {
        return SearchRequest.newBuilder()
                .setRequestId(nextRequestId++)
                .setPartition(partition)
                .setQuery(query)
                .setK(k)
                .setTotalHitsThreshold(Integer.MAX_VALUE)
                .build();
    }

    private static Frame frame(SearchRequest request) {
        return Frame.newBuilder().setSearch(request).build();
    }

    private static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        root.send(frame(request));
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.RESULT);
        assertThat(answer.getResult().getRequestId()).isEqualTo(request.getRequestId());
        return answer.getResult();
    }

    private FetchResponse fetch(FrameSocket root, FetchRequest.Builder request) throws IOException {
        request.setRequestId(nextRequestId++);
        root.send(Frame.newBuilder().setFetch(request).build());
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.FETCH_RESULT);
        assertThat(answer.getFetchResult().getRequestId()).isEqualTo(request.getRequestId());
        return answer.getFetchResult();
    }

    /** The request with its query padded by spaces (which the parser skips) to a frame of exactly {@code frameBytes}. */
    private static SearchRequest padded(SearchRequest request, int frameBytes) {
        for (int padding = frameBytes; padding >= 0; padding--) {
            SearchRequest candidate = request.toBuilder().setQuery(request.getQuery() + " ".repeat(padding)).build();
            if (frame(candidate).getSerializedSize() == frameBytes) {
                return candidate;
            }
        }
        throw new AssertionError("no padding gives a frame of " + frameBytes + " bytes");
    }

    private static String words(Random random, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }
}
