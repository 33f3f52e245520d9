package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.server.LeafConfig;
import io.hedgerow.leaf.server.LeafServer;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.ClusterState;
import io.hedgerow.root.cluster.IndexProbe;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code hedgerow root} learns the index from its leaves instead of assuming 16 partitions, and
 * refuses to start, naming both sides, when what it is told disagrees with what it learns.
 */
class RootCommandTest {
    private static final String INDEX = "learnt";

    @TempDir
    static Path dataDir;

    private static PartitionStore threePartitions;
    private static PartitionStore otherBuild;

    private final List<LeafServer> leaves = new ArrayList<>();

    @BeforeAll
    static void buildIndexes() throws IOException {
        threePartitions = build("three", 3, 1);
        otherBuild = build("other", 3, 2);
    }

    private static PartitionStore build(String dir, int partitions, long seed) throws IOException {
        PartitionStore store = new PartitionStore(dataDir.resolve(dir));
        new IndexBuilder(IndexOptions.defaults().withPartitions(partitions), IndexProgress.none())
                .build(store, INDEX, IndexConfig.defaults(), TestData.documents(seed, 30));
        return store;
    }

    @AfterEach
    void stop() {
        leaves.forEach(LeafServer::close);
    }

    @Test
    void learnsTheIndexFromItsLeaves() throws Exception {
        List<String> addresses = List.of(leaf(threePartitions).address(), leaf(threePartitions).address());
        assertThat(IndexProbe.learn(addresses, ClusterState.randomRootId(), Duration.ofSeconds(10)))
                .isEqualTo(threePartitions.readManifest());
    }

    @Test
    void refusesToStartWhenToldAnotherPartitionCountNamingBothNumbers() throws IOException {
        Run run = run("root", "--leaves", leaf(threePartitions).address(), "--partitions", "16", "--port", "0");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("error: --partitions 16, but index '" + INDEX + "' (learnt from the leaves) has 3"
                + " partitions");
    }

    @Test
    void refusesToStartWhenTheLeavesServeDifferentIndexes() throws IOException {
        String one = leaf(threePartitions).address();
        String other = leaf(otherBuild).address();
        Run run = run("root", "--leaves", one + "," + other, "--port", "0");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("the leaves serve different indexes: " + one + " serves '" + INDEX + "'",
                other + " serves '" + INDEX + "'", "give the root --index DIR");
    }

    @Test
    void needsLeavesOrZooKeeperAndLeafSlotsOnlyWithZooKeeper() {
        Run none = run("root", "--port", "0");
        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.err()).contains("error: no --leaves and no --zk");

        Run slots = run("root", "--leaves", "127.0.0.1:1", "--leaf-slots", "8", "--port", "0");
        assertThat(slots.exitCode()).isEqualTo(1);
        assertThat(slots.err()).contains("error: --leaf-slots 8 without --zk");
    }

    @Test
    void saysWhyWhenNoLeafAnswers() throws IOException {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        assertThatThrownBy(() -> IndexProbe.learn(List.of("127.0.0.1:" + closedPort), 1, Duration.ofMillis(300)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no leaf said which index it serves within 300 ms")
                .hasMessageContaining("cannot connect to 127.0.0.1:" + closedPort);
    }

    private LeafServer leaf(PartitionStore store) throws IOException {
        LeafServer leaf = LeafServer.start(LeafConfig.defaults(store.dir()).withWorkers(1));
        leaves.add(leaf);
        return leaf;
    }

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = HedgerowCli.newCommandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exitCode = cli.execute(args);
        return new Run(exitCode, out.toString(), err.toString());
    }
}
