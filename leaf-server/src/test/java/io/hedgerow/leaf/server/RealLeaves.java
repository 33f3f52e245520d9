package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.leaf.http.LeafHttpConfig;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real leaves on loopback sockets over one real index, for a test class (as Armeria's
 * {@code ServerExtension}): the index is built once, in a directory of its own, before the class's
 * tests and deleted after them; every leaf a test starts and every socket it opens through this
 * extension is closed after that test (sockets first, then leaves). Register it in a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RealLeaves leaves = RealLeaves.hedgerowIndex("facets", 2);
 * }</pre>
 *
 * <p>Not thread-safe: a test's own thread starts leaves and opens sockets.
 */
final class RealLeaves implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** Builds the class's index in {@code dir}. */
    @FunctionalInterface
    interface IndexMaker {
        PartitionStore make(Path dir) throws IOException;
    }

    private final String index;
    private final int partitions;
    private final IndexMaker maker;
    private final List<LeafServer> leaves = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private long firstRequestId = 1_000;
    private long nextRequestId;
    private Path dir;
    private PartitionStore store;

    private RealLeaves(String index, int partitions, IndexMaker maker) {
        this.index = index;
        this.partitions = partitions;
        this.maker = maker;
    }

    /** {@link TestLeaves#hedgerowIndex}: 40 short documents of hedgerow words over {@code partitions}. */
    static RealLeaves hedgerowIndex(String index, int partitions) {
        return new RealLeaves(index, partitions, dir -> TestLeaves.hedgerowIndex(dir, index, partitions));
    }

    /** An index of {@code docs} over {@code partitions}, with the default config. */
    static RealLeaves of(String index, int partitions, List<SourceDocument> docs) {
        List<SourceDocument> copied = List.copyOf(docs);
        return new RealLeaves(index, partitions, dir -> TestLeaves.build(dir, index, partitions, copied));
    }

    /** An index {@code maker} builds, of {@code partitions} partitions. */
    static RealLeaves made(String index, int partitions, IndexMaker maker) {
        return new RealLeaves(index, partitions, maker);
    }

    /** Request ids of each test start from {@code first} (1,000 unless set). */
    RealLeaves firstRequestId(long first) {
        this.firstRequestId = first;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("real-leaves-");
        store = maker.make(dir.resolve(index));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        nextRequestId = firstRequestId;
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        try {
            for (Socket socket : sockets) {
                socket.close();
            }
        } finally {
            leaves.forEach(LeafServer::close);
            sockets.clear();
            leaves.clear();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        try (Stream<Path> walked = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) walked.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    String index() {
        return index;
    }

    int partitions() {
        return partitions;
    }

    PartitionStore store() {
        return store;
    }

    /** The default leaf config over this index. */
    LeafConfig config() {
        return LeafConfig.defaults(store.dir());
    }

    /** The sockets opened in this test, for {@link TestLeaves}' methods: closed after it. */
    List<Socket> sockets() {
        return sockets;
    }

    /** A leaf, closed after the test. */
    LeafServer start(LeafConfig config) throws IOException {
        return started(LeafServer.start(config));
    }

    /** A leaf with these HTTP settings, closed after the test. */
    LeafServer start(LeafConfig config, LeafHttpConfig http) throws IOException {
        return started(LeafServer.start(config, http));
    }

    /** A leaf started elsewhere, to be closed after the test. */
    LeafServer started(LeafServer leaf) {
        leaves.add(leaf);
        return leaf;
    }

    /** The leaves started in this test and not forgotten, oldest first. */
    List<LeafServer> started() {
        return Collections.unmodifiableList(leaves);
    }

    /** A leaf the test closed itself: no longer among {@link #started()}. */
    void forget(LeafServer leaf) {
        leaves.remove(leaf);
    }

    /** A plain socket to {@code leaf}, nothing sent yet ({@link TestLeaves#open}). */
    FrameSocket open(LeafServer leaf) throws IOException {
        return TestLeaves.open(leaf, sockets);
    }

    /** The test root's connection to {@code leaf}, every partition of the index assigned. */
    FrameSocket root(LeafServer leaf) throws IOException {
        return TestLeaves.root(leaf, sockets, FrameSocket.ROOT_ID, index, partitions);
    }

    /** Root {@code rootId}'s connection to {@code leaf}, every partition of the index assigned. */
    FrameSocket root(LeafServer leaf, long rootId) throws IOException {
        return TestLeaves.root(leaf, sockets, rootId, index, partitions);
    }

    /** Another leaf's connection to {@code leaf}, for twin cancels. */
    FrameSocket peer(LeafServer leaf) throws IOException {
        return TestLeaves.peer(leaf, sockets);
    }

    /** A request id not used yet in this test. */
    long nextRequestId() {
        return nextRequestId++;
    }

    /** Sends {@code request} and reads the answer, which must be to it (its status is the caller's to check). */
    static SearchResponse search(FrameSocket root, SearchRequest request) throws IOException {
        root.send(Frame.newBuilder().setSearch(request).build());
        SearchResponse answer = root.receive().getResult();
        assertThat(answer.getRequestId()).isEqualTo(request.getRequestId());
        return answer;
    }
}
