package io.hedgerow.leaf.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.common.wire.proto.AssignAck;
import io.hedgerow.common.wire.proto.AssignPartitions;
import io.hedgerow.common.wire.proto.FetchItem;
import io.hedgerow.common.wire.proto.FetchRequest;
import io.hedgerow.common.wire.proto.Frame;
import io.hedgerow.common.wire.proto.SearchRequest;
import io.hedgerow.common.wire.proto.SearchResponse;
import io.hedgerow.common.wire.proto.Status;
import io.hedgerow.leaf.fault.QueryOfDeath;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.SourceDocument;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --query-of-death}: a real leaf process (a child JVM) answers ordinary queries, then halts with
 * {@link QueryOfDeath#EXIT_CODE} when one holds the token, dropping the connection with no answer and
 * running no shutdown hook.
 */
class QueryOfDeathProcessTest {
    private static final String INDEX = "qod";
    private static final String TOKEN = "KILLME";
    /** Bounds only a leaf that never starts or never exits. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    static Path data;

    private static PartitionStore store;

    private Process leaf;
    private Path log;

    @BeforeAll
    static void buildIndex() throws IOException {
        List<SourceDocument> docs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            docs.add(new SourceDocument("doc-" + i, Map.of("title", "hedge " + i, "body", "a hawthorn hedge by the lane"),
                    i + 1));
        }
        store = new PartitionStore(data.resolve(INDEX));
        new IndexBuilder(IndexOptions.defaults().withPartitions(2), IndexProgress.none())
                .build(store, INDEX, IndexConfig.defaults(), docs);
    }

    @AfterEach
    void killLeaf() throws InterruptedException {
        if (leaf != null && leaf.isAlive()) {
            leaf.destroyForcibly().waitFor();
        }
    }

    @Test
    void aSearchHoldingTheTokenHaltsTheLeafAfterAnOrdinaryOneIsAnswered(@TempDir Path run) throws Exception {
        try (Socket socket = connect(startLeaf(run))) {
            FrameSocket root = FrameSocket.over(socket);
            assign(root);
            SearchResponse answered = search(root, 1, "hedge");
            assertThat(answered.getStatus()).isEqualTo(Status.OK);
            assertThat(answered.getHitsCount()).isPositive();
            SearchResponse lowerCase = search(root, 2, "hedge " + TOKEN.toLowerCase());
            assertThat(lowerCase.getStatus()).as("the token is case-sensitive").isEqualTo(Status.OK);

            root.send(Frame.newBuilder().setSearch(request(4242, "hedge AND " + TOKEN)).build());

            assertThat(exitStatus()).isEqualTo(QueryOfDeath.EXIT_CODE);
            assertThatThrownBy(root::receive).as("no answer, the connection drops").isInstanceOf(IOException.class);
        }
        assertThat(Files.readString(log)).contains("query of death: search request 4242 contains the token 'KILLME'; "
                + "the leaf halts with status 70").doesNotContain("leaf stopped");
    }

    @Test
    void aFetchHoldingTheTokenHaltsTheLeafToo(@TempDir Path run) throws Exception {
        try (Socket socket = connect(startLeaf(run))) {
            FrameSocket root = FrameSocket.over(socket);
            assign(root);
            assertThat(search(root, 1, "hawthorn").getStatus()).isEqualTo(Status.OK);

            root.send(Frame.newBuilder().setFetch(FetchRequest.newBuilder().setRequestId(77).setQuery("hawthorn " + TOKEN)
                    .addItems(FetchItem.newBuilder().setPartition(0).setDoc(0)).setStoredFields(true)).build());

            assertThat(exitStatus()).isEqualTo(QueryOfDeath.EXIT_CODE);
            assertThatThrownBy(root::receive).isInstanceOf(IOException.class);
        }
        assertThat(Files.readString(log)).contains("query of death: fetch request 77 contains the token 'KILLME'");
    }

    /** Starts the leaf process and returns its port once it listens. */
    private int startLeaf(Path run) throws Exception {
        Path portFile = run.resolve("leaf.port");
        log = run.resolve("leaf.log");
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), LeafProcessMain.class.getName(),
                "--index", store.dir().toString(), "--port", "0", "--port-file", portFile.toString(), "--workers", "1",
                "--warmup", "0s", "--exit-with-parent", "--fault-injection", "--query-of-death", TOKEN));
        leaf = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!Files.exists(portFile)) {
            assertThat(leaf.isAlive()).as("leaf still starting; its log: %s", Files.readString(log)).isTrue();
            assertThat(System.nanoTime() - deadline).as("waiting for the leaf to listen").isNegative();
            Thread.sleep(20);
        }
        return Integer.parseInt(Files.readString(portFile).trim());
    }

    private int exitStatus() throws InterruptedException {
        assertThat(leaf.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the leaf exits").isTrue();
        return leaf.exitValue();
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) BOUND.toMillis());
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static void assign(FrameSocket root) throws IOException {
        assertThat(root.hello(FrameSocket.ROOT_ID).getError()).isEmpty();
        root.send(Frame.newBuilder().setAssign(AssignPartitions.newBuilder().setRequestId(1).setIndexName(INDEX)
                .addPartitions(0).addPartitions(1)).build());
        AssignAck ack = root.receive().getAssignAck();
        assertThat(ack.getError()).isEmpty();
        assertThat(ack.getPartitionsCount()).isEqualTo(2);
    }

    private static SearchRequest request(long requestId, String query) {
        return SearchRequest.newBuilder().setRequestId(requestId).setPartition(0).setQuery(query).setK(5)
                .setTotalHitsThreshold(100).build();
    }

    private static SearchResponse search(FrameSocket root, long requestId, String query) throws IOException {
        root.send(Frame.newBuilder().setSearch(request(requestId, query)).build());
        Frame answer = root.receive();
        assertThat(answer.getBodyCase()).isEqualTo(Frame.BodyCase.RESULT);
        assertThat(answer.getResult().getRequestId()).isEqualTo(requestId);
        return answer.getResult();
    }
}
