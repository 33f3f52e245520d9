package io.hedgerow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.coordination.CoordinationClient;
import io.hedgerow.coordination.CoordinationSettings;
import io.hedgerow.coordination.CuratorClusterStore;
import io.hedgerow.coordination.PartitionState;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.MembershipView;
import io.hedgerow.root.local.LocalCluster;
import io.hedgerow.root.local.LocalClusterOptions;
import io.hedgerow.root.local.LocalCoordination;
import io.hedgerow.root.local.RunDirectory;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code local} with its defaults ({@code --zk embedded}): the cluster's own ZooKeeper runs as a child
 * process, holds each partition's primary, term and in-sync set, outlives nothing but its data, and a
 * {@code local} started again on the same run directory reads that state back (leaves on their old
 * ports, ZooKeeper on its old port), so a write only the promoted copy holds is still served. The
 * options come from the command line as {@code local} parses it ({@link ClusterOptions#toOptions}).
 * Real leaf and ZooKeeper JVMs, real sockets.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LocalZooKeeperTest {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;

    /** The options {@code hedgerow local ARGS} starts its cluster with, on 2 leaves and free ports. */
    private static LocalClusterOptions options(Path index, Path run, String... args) {
        java.util.List<String> line = new ArrayList<>(List.of("local", "--index", index.toString(), "--run-dir",
                run.toString(), "--leaves", "2", "--replicas", "2", "--port", "0", "--leaf-warmup", "0s"));
        line.addAll(List.of(args));
        picocli.CommandLine top = HedgerowCli.newCommandLine(Map.of());
        top.parseArgs(line.toArray(String[]::new));
        picocli.CommandLine.Model.CommandSpec local = top.getSubcommands().get("local").getCommandSpec();
        ClusterOptions cluster = (ClusterOptions) local.mixins().get("cluster").userObject();
        return cluster.toOptions(index, local);
    }

    private static Path index(Path data) throws Exception {
        PartitionStore index = new PartitionStore(data.resolve("zk-index"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(PARTITIONS), IndexProgress.none())
                .build(index, "zk-index", IndexConfig.defaults(), TestData.documents(5, 100));
        return index.dir();
    }

    @Test
    void aRestartedLocalClusterReadsItsStoredStateAndServesWritesOnlyThePromotedCopyHolds(@TempDir Path data)
            throws Exception {
        LocalClusterOptions options = options(index(data), data.resolve("run"));
        assertThat(options.coordination()).as("local's default").isEqualTo(LocalCoordination.embedded(0, "local-zk-index-2x2"));
        RunDirectory run = options.runDirectory();
        List<String> acknowledged = new ArrayList<>();
        Map<Integer, Long> termsBefore = new HashMap<>();
        long zkPid;
        List<ProcessHandle> firstProcesses = new ArrayList<>();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        try (LocalCluster first = LocalCluster.start(options, new PrintStream(progress, true))) {
            zkPid = Long.parseLong(Files.readString(run.pidFile("zk")).trim());
            ProcessHandle zk = ProcessHandle.of(zkPid).orElseThrow();
            assertThat(zk.parent().map(ProcessHandle::pid)).as("ZooKeeper is local's child process")
                    .contains(ProcessHandle.current().pid());
            int zkPort = Integer.parseInt(Files.readString(run.portFile("zk")).trim());
            assertThat(progress.toString()).as("one line says where ZooKeeper runs, before the leaves' lines")
                    .containsPattern("  zk: started in [0-9.]+ s, pid " + zkPid + ", 127.0.0.1:" + zkPort + ", data in ")
                    .satisfies(text -> assertThat(text.indexOf("  zk: ")).isLessThan(text.indexOf("  leaf 0: ")));
            // Each leaf was given --zk: registered before it wrote its port file, so before the root started.
            Await.until(() -> "both leaves registered: " + first.root().cluster().membership(), PATIENCE,
                    () -> first.root().cluster().membership().leaves().stream()
                            .allMatch(m -> m.state() == MembershipView.State.REGISTERED));
            assertThat(first.root().cluster().membership().leaves()).extracting(m -> m.node().value())
                    .containsExactly("0", "1");
            JsonNode report = clusterReport(first);
            assertThat(report.path("membership").path("initialized").asBoolean()).as("/cluster: %s", report).isTrue();
            for (JsonNode leaf : report.path("leaves")) {
                assertThat(leaf.path("membership").path("state").asText()).as("/cluster: %s", leaf).isEqualTo("registered");
            }
            firstProcesses.add(zk);
            firstProcesses.add(first.leafProcess(0));
            firstProcesses.add(first.leafProcess(1));
            DocumentWriter documents = first.root().documents();
            write(documents, "both", acknowledged);
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(documents.primaryTerm(p)).as("partition %d's term, from the store", p).isPositive();
            }

            first.killLeaf(0);
            // Partitions whose primary was leaf 0 promote leaf 1 through the store (a new term); the rest
            // drop leaf 0 from their stored in-sync set. Only leaf 1 holds these.
            write(documents, "only-leaf-1", acknowledged);
            try (CoordinationClient client = CoordinationClient.connect(
                    CoordinationSettings.of("127.0.0.1:" + zkPort, options.coordination().cluster()))) {
                CuratorClusterStore store = new CuratorClusterStore(client);
                for (int p = 0; p < PARTITIONS; p++) {
                    Optional<PartitionState> state = store.read(p);
                    assertThat(state).as("partition %d in ZooKeeper", p).isPresent();
                    assertThat(state.get().inSync()).as("partition %d's stored in-sync set", p).hasSize(1);
                    termsBefore.put(p, state.get().primaryTerm());
                }
            }
            assertThat(termsBefore.values()).as("some partition had its primary on leaf 0 and promoted leaf 1")
                    .anyMatch(term -> term > PartitionState.FIRST_TERM);
        }
        for (ProcessHandle process : firstProcesses) {
            assertThat(process.isAlive()).as("pid %d after close", process.pid()).isFalse();
        }
        assertThat(Files.readString(run.logFile("zk"))).as("ZooKeeper stopped by SIGTERM, its files closed")
                .contains("zk stopped");
        Map<Integer, Integer> ports = run.keptLeafPorts();
        assertThat(ports).containsOnlyKeys(0, 1);
        // local --zk gives each leaf a term log (for the durability checker): leaf 1 logged the new
        // terms it was told of with itself as their primary (lines: TIME PARTITION TERM PRIMARY).
        List<String> promotions = new ArrayList<>();
        termsBefore.forEach((p, term) -> {
            if (term > PartitionState.FIRST_TERM) {
                promotions.add(p + " " + term + " 127.0.0.1_" + ports.get(1));
            }
        });
        List<String> logged = Files.readAllLines(run.termLogFile("leaf-1")).stream()
                .filter(line -> !line.startsWith("#")).map(line -> line.substring(line.indexOf(' ') + 1)).toList();
        assertThat(logged).as("leaf 1's term log").containsAnyElementsOf(promotions);
        assertThat(run.termLogFile("leaf-0")).as("leaf 0's term log").exists();

        int keptZkPort = Integer.parseInt(Files.readString(run.zooKeeperPortFile()).trim());
        try (LocalCluster second = LocalCluster.start(options, new PrintStream(PrintStream.nullOutputStream()))) {
            assertThat(Integer.parseInt(Files.readString(run.portFile("zk")).trim()))
                    .as("ZooKeeper's port, chosen free at the first start and asked for again").isEqualTo(keptZkPort);
            for (int leaf = 0; leaf < 2; leaf++) {
                assertThat(Integer.parseInt(Files.readString(run.portFile("leaf-" + leaf)).trim()))
                        .as("leaf %d's port, as the stored in-sync sets name it", leaf).isEqualTo(ports.get(leaf));
            }
            DocumentWriter documents = second.root().documents();
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(documents.primaryTerm(p)).as("partition %d's term, read back from the store", p)
                        .isGreaterThanOrEqualTo(termsBefore.get(p));
            }
            for (String id : acknowledged) {
                assertThat(documents.get(id).join().outcome()).as(id).isEqualTo(DocumentResult.Outcome.FOUND);
            }
            write(documents, "after-restart", acknowledged);
        }
    }

    @Test
    void refusesToStartWhenItsZooKeeperPortIsTakenAndStartsNothing(@TempDir Path data) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            LocalClusterOptions options = options(index(data), data.resolve("run"), "--zk-port",
                    Integer.toString(port));

            assertThatThrownBy(() -> LocalCluster.start(options, new PrintStream(PrintStream.nullOutputStream())))
                    .isInstanceOf(BindException.class)
                    .hasMessageContaining("ZooKeeper's port " + port + " on 127.0.0.1 is already in use")
                    .hasMessageContaining("--zk-port");
            assertThat(options.runDirectory().liveProcesses()).isEmpty();
            assertThat(options.runDirectory().pidFile("zk")).doesNotExist();
        }
    }

    private static JsonNode clusterReport(LocalCluster cluster) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/cluster")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as("/cluster: %s", response.body()).isEqualTo(200);
            return new ObjectMapper().readTree(response.body());
        }
    }

    /** Writes documents until every partition has taken at least two of them. */
    private static void write(DocumentWriter documents, String prefix, List<String> acknowledged) {
        int[] perPartition = new int[PARTITIONS];
        for (int i = 0; java.util.Arrays.stream(perPartition).min().orElseThrow() < 2; i++) {
            String id = prefix + "-" + i;
            perPartition[documents.partitionOf(id)]++;
            DocumentResult result = documents.upsert(id, Map.of("title", "sedge " + id, "body", "sedge warbler"),
                    DocumentWriter.WriteOptions.NONE).join();
            assertThat(result.outcome()).as(id).isEqualTo(DocumentResult.Outcome.CREATED);
            acknowledged.add(id);
        }
    }
}
