package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchException;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.root.Await;
import io.hedgerow.root.TestData;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hedgerow local}: leaves as real child JVMs, killed and restarted, and nothing left behind. */
class LocalClusterTest {
    private static PartitionStore index;

    @BeforeAll
    static void buildIndex(@TempDir Path data) throws Exception {
        index = new PartitionStore(data.resolve("local"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(6), IndexProgress.none())
                .build(index, "local", IndexConfig.defaults(), TestData.documents(11, 500));
    }

    private static LocalClusterOptions options(Path runDir, int httpPort) {
        return options(runDir, httpPort, 3);
    }

    private static LocalClusterOptions options(Path runDir, int httpPort, int leaves) {
        return new LocalClusterOptions(index.dir(), leaves, 2, "127.0.0.1", httpPort, new RunDirectory(runDir),
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"),
                        System.getProperty("java.class.path"), "256m"),
                Duration.ofSeconds(60), false, Duration.ZERO, HedgeSettings.defaults(),
                TailSettings.defaults(), 0);
    }

    @Test
    void servesFromReplicasWhenALeafProcessIsKilledAndTakesItBackWhenItRestarts(@TempDir Path runDir) throws Exception {
        List<ProcessHandle> leaves = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(options(runDir, 0), quiet())) {
            for (int i = 0; i < 3; i++) {
                leaves.add(cluster.leafProcess(i));
                assertThat(Files.readString(runDir.resolve("leaf-" + i + ".pid")).trim())
                        .isEqualTo(Long.toString(cluster.leafProcess(i).pid()));
            }
            SearchResult before = search(cluster);
            assertThat(before.tainted()).isFalse();
            assertThat(before.hits()).isNotEmpty();

            cluster.killLeaf(1);
            assertThat(leaves.get(1).isAlive()).isFalse();

            SearchResult during = search(cluster);
            assertThat(during.tainted()).isFalse();
            assertThat(during.hits()).isEqualTo(before.hits());
            HttpResponse<String> http = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/search?q=alpha&timeout_ms=30000")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(http.statusCode()).isEqualTo(200);
            assertThat(http.body()).contains("\"tainted\":false");

            LeafStatus killed = cluster.root().cluster().leaf(1);
            // Polled, not spun: a spinning thread holds one of the machine's two cores from the leaf JVMs.
            Await.until("the root to see leaf 1 down", Duration.ofSeconds(60),
                    () -> killed.state() == LeafStatus.State.DOWN);
            HttpResponse<String> delayDead = postDelay(cluster, 1);
            assertThat(delayDead.statusCode()).as(delayDead.body()).isEqualTo(503);
            assertThat(delayDead.body()).contains("\"error\":\"unavailable\"", "leaf 1 (127.0.0.1:", "is not connected");
            HttpResponse<String> refused = postDelay(cluster, 0);
            assertThat(refused.statusCode()).as("a leaf started without --fault-injection").isEqualTo(409);
            assertThat(refused.body()).contains("\"error\":\"conflict\"",
                    "refused: fault injection is disabled on this leaf; start it with --fault-injection");

            HttpResponse<String> restart = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/admin/leaves/1/restart"))
                    .header("Authorization", "Bearer " + cluster.adminToken())
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(restart.statusCode()).as(restart.body()).isEqualTo(200);
            assertThat(restart.body()).contains("leaf 1 restarted as pid " + cluster.leafProcess(1).pid());
            HttpResponse<String> again = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/admin/leaves/1/restart"))
                    .header("Authorization", "Bearer " + cluster.adminToken())
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(again.statusCode()).as("restarting a running leaf").isEqualTo(409);
            assertThat(again.body()).contains("\"error\":\"conflict\"").contains("still running");
            LeafStatus restarted = cluster.root().cluster().leaf(1);
            Await.until("the root to reconnect to the restarted leaf 1", Duration.ofSeconds(60),
                    () -> restarted.state() == LeafStatus.State.UP);
            assertThat(restarted.state()).as("the root reconnected to the restarted leaf").isEqualTo(LeafStatus.State.UP);
            assertThat(search(cluster).hits()).isEqualTo(before.hits());
            leaves.set(1, cluster.leafProcess(1));
        }
        for (ProcessHandle leaf : leaves) {
            assertThat(leaf.isAlive()).as("leaf %d after close", leaf.pid()).isFalse();
        }
        assertThat(new RunDirectory(runDir).liveProcesses()).isEmpty();
        try (var pidFiles = Files.list(runDir)) {
            assertThat(pidFiles.filter(f -> f.toString().endsWith(".pid"))).isEmpty();
        }
    }

    @Test
    void stopFromElsewhereStopsEveryLeafProcessOfAClusterWithFaultInjection(@TempDir Path runDir) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(options(runDir, 0).withFaultInjection(true), quiet())) {
            List<ProcessHandle> leaves = List.of(cluster.leafProcess(0), cluster.leafProcess(1), cluster.leafProcess(2));
            HttpResponse<String> delayed = postDelay(cluster, 2);
            assertThat(delayed.statusCode()).as(delayed.body()).isEqualTo(200);
            assertThat(delayed.body()).contains("\"result\":\"delaying sub-requests by 1ms with probability 0.01 for 5s");

            int stopped = new RunDirectory(runDir).stopAll(10_000);

            assertThat(stopped).as("the leaves; never the process asking").isEqualTo(3);
            assertThat(leaves).noneMatch(ProcessHandle::isAlive);
            assertThat(ProcessHandle.current().isAlive()).isTrue();
        }
    }

    @Test
    void aQueryOfDeathCostsTwoPartnerLeavesAtMostAndNoPartitionAndIsThenRefusedWithoutTouchingOne(@TempDir Path runDir)
            throws Exception {
        // Four leaves, two replicas: leaves 0-1 and 2-3 are partners that share no partition.
        try (LocalCluster cluster = LocalCluster.start(options(runDir, 0, 4).withFaultInjection(true)
                .withQueryOfDeath("KILLME"), quiet())) {
            assertThat(search(cluster).hits()).as("ordinary queries are answered").isNotEmpty();

            Throwable deadly = cluster.client().search(SearchRequest.builder("alpha KILLME").timeoutMillis(30_000).build())
                    .handle((result, failure) -> failure).join();

            assertThat(deadly).as("the query of death fails").isNotNull();
            assertThat(deadly.getCause() != null ? deadly.getCause() : deadly).isInstanceOfSatisfying(SearchException.class,
                    e -> {
                        assertThat(e.kind()).isEqualTo(SearchException.Kind.DANGEROUS);
                        assertThat(e.getMessage()).contains("when the connection dropped", "blocklisted");
                    });
            // One lost connection is not evidence (a leaf may crash or restart on its own): the canary
            // went to a second leaf as a second opinion, the first's partner, which halted too. No
            // third leaf got it.
            List<Integer> halted = new ArrayList<>();
            awaitHalted(cluster, halted, 2);
            for (int i : halted) {
                assertThat(Files.readString(new RunDirectory(runDir).logFile("leaf-" + i)))
                        .contains("query of death: search request", "contains the token 'KILLME'");
            }
            assertThat(halted).as("leaves halted by the query of death").hasSize(2);
            assertThat(halted.get(0) ^ 1).as("the second is the first's partner").isEqualTo(halted.get(1));
            assertThat(cluster.root().tail().blocklist().list()).singleElement()
                    .satisfies(entry -> assertThat(entry.fingerprint()).isEqualTo(cluster.root().tail().fingerprint("alpha KILLME")));

            // The same query again, spelt with other whitespace or its terms the other way round: refused at the root.
            double sentBefore = subRequestsSent(cluster);
            for (String respelt : List.of("  alpha   KILLME ", "KILLME alpha")) {
                Throwable refused = cluster.client().search(SearchRequest.of(respelt)).handle((r, f) -> f).join();
                assertThat(refused.getCause() != null ? refused.getCause() : refused).as(respelt)
                        .isInstanceOfSatisfying(SearchException.class,
                                e -> assertThat(e.kind()).isEqualTo(SearchException.Kind.BLOCKLISTED));
            }
            assertThat(subRequestsSent(cluster)).as("sub-requests sent for the refused queries").isEqualTo(sentBefore);

            // No partition lost both replicas: everything else is answered in full by the two leaves left.
            SearchResult after = cluster.client().search(SearchRequest.builder("alpha bravo").k(20).cache(false)
                    .timeoutMillis(30_000).build()).join();
            assertThat(after.hits()).isNotEmpty();
            assertThat(after.tainted()).as("halted %s, %s, placement:%n%s", halted, after.errors(),
                    cluster.root().cluster().assignment()).isFalse();
            assertThat(after.coverage().partitionsAnswered()).isEqualTo(6);
            for (int i = 0; i < 4; i++) {
                assertThat(cluster.leafProcess(i).isAlive()).as("leaf %d alive", i).isEqualTo(!halted.contains(i));
            }
        }
    }

    /** The leaves whose connection dropped may take a moment to be reaped: waits for {@code count} exits. */
    private static void awaitHalted(LocalCluster cluster, List<Integer> halted, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (halted.size() < count && System.nanoTime() < deadline) {
            halted.clear();
            for (int i = 0; i < cluster.leafCount(); i++) {
                if (!cluster.leafProcess(i).isAlive()) {
                    halted.add(i);
                }
            }
            Thread.sleep(10);
        }
    }

    private static double subRequestsSent(LocalCluster cluster) {
        return cluster.root().metrics().registry().get("hedgerow.subrequests").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    @Test
    void refusesAQueryOfDeathWithoutFaultInjection(@TempDir Path runDir) {
        assertThatThrownBy(() -> options(runDir, 0).withQueryOfDeath("KILLME"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queryOfDeath: 'KILLME' (expected: a non-empty token, and only with fault injection)");
    }

    @Test
    void refusesATakenHttpPortBeforeStartingAnyLeaf(@TempDir Path runDir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> LocalCluster.start(options(runDir, taken.getLocalPort()), quiet()))
                    .isInstanceOf(BindException.class)
                    .hasMessageContaining("port " + taken.getLocalPort())
                    .hasMessageContaining("already in use (choose another with --port)");
        }
        assertThat(new RunDirectory(runDir).liveProcesses()).isEmpty();
    }

    private static SearchResult search(LocalCluster cluster) {
        // A generous timeout: a cold leaf JVM on a loaded machine can miss the default 1 s, and this
        // test is about failover, not speed.
        return cluster.client().search(SearchRequest.builder("alpha bravo").k(20).exactTotalHits()
                .timeoutMillis(30_000).build()).join();
    }

    private static HttpResponse<String> postDelay(LocalCluster cluster, int leaf) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + cluster.httpPort() + "/admin/leaves/" + leaf + "/delay"))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + cluster.adminToken())
                .POST(HttpRequest.BodyPublishers.ofString("{\"delay_ms\": 1, \"probability\": 0.01, \"duration_ms\": 5000}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream());
    }
}
