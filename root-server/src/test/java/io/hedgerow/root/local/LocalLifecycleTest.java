package io.hedgerow.root.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SearchResult;
import io.hedgerow.common.net.ClusterSecret;
import io.hedgerow.common.policy.Backoff;
import io.hedgerow.leaf.index.IndexBuilder;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexOptions;
import io.hedgerow.leaf.index.IndexProgress;
import io.hedgerow.leaf.index.PartitionStore;
import io.hedgerow.leaf.index.ServingLock;
import io.hedgerow.root.TestData;
import io.hedgerow.root.adapt.AdaptationSettings;
import io.hedgerow.root.cluster.LeafStatus;
import io.hedgerow.root.hedge.HedgeSettings;
import io.hedgerow.root.tail.TailSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lifecycle of a local cluster's leaf processes, with real child JVMs: the supervisor brings
 * back a leaf killed with SIGKILL and reports one that keeps dying, a rolling restart under queries
 * loses no partition, the leaves get the cluster secret without it on their command line, and a
 * second cluster cannot start on an index a running one serves.
 */
class LocalLifecycleTest {
    /** Restarts within 50-100 ms at first; 2 deaths within a minute are a crash loop, restarted after 1 s. */
    private static final RestartPolicy.Settings FAST = new RestartPolicy.Settings(
            Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)), 2, Duration.ofMinutes(1),
            Duration.ofSeconds(1));
    private static final Duration BOUND = Duration.ofSeconds(90);
    /**
     * The rolling restart waits for each restarted leaf to leave its slow start: at the default
     * 30 s window that is 30 s of waiting per leaf. A short window keeps the wait in the test.
     */
    private static final AdaptationSettings SHORT_SLOW_START = AdaptationSettings.defaults()
            .withSlowStart(Duration.ofSeconds(3));

    private static PartitionStore index;

    @BeforeAll
    static void buildIndex(@TempDir Path data) throws Exception {
        index = new PartitionStore(data.resolve("lifecycle"));
        new IndexBuilder(IndexOptions.defaults().withPartitions(6), IndexProgress.none())
                .build(index, "lifecycle", IndexConfig.defaults(), TestData.documents(11, 500));
    }

    private static LocalClusterOptions options(Path runDir) {
        return new LocalClusterOptions(index.dir(), 3, 2, "127.0.0.1", 0, new RunDirectory(runDir),
                new JavaLauncher(ProcessHandle.current().info().command().orElse("java"),
                        System.getProperty("java.class.path"), "256m"),
                Duration.ofSeconds(60), false, Duration.ZERO, HedgeSettings.defaults(), TailSettings.defaults(), 0);
    }

    @Test
    void restartsALeafKilledWithSigkillByItselfAndReportsOneThatKeepsDyingAsACrashLoop(@TempDir Path runDir)
            throws Exception {
        try (LocalCluster cluster = LocalCluster.start(options(runDir).withSupervision(FAST), quiet())) {
            LeafStatus leaf = cluster.root().cluster().leaf(1);
            long first = cluster.leafProcess(1).pid();

            cluster.killLeaf(1);

            await(() -> cluster.leafProcess(1).pid() != first && leaf.state() == LeafStatus.State.UP,
                    "leaf 1 restarted and ready again");
            assertThat(cluster.leafProcess(1).isAlive()).isTrue();
            assertThat(leaf.supervision().state()).isEqualTo("running");
            assertThat(leaf.supervision().restarts()).isEqualTo(1);
            assertThat(leaf.supervision().detail()).contains("pid " + first + " exited with status 137 (SIGKILL)");
            SearchResult served = search(cluster);
            assertThat(served.tainted()).isFalse();
            // One search may take every partition's other replica; the restarted leaf gets its share of a few.
            await(() -> search(cluster).tainted() || leaf.subRequests() > 0, "the restarted leaf to serve");
            assertThat(leaf.subRequests()).as("the restarted leaf serves").isPositive();
            assertThat(get(cluster, "/cluster")).contains("\"process\":{\"state\":\"running\",\"restarts\":1");

            // A second death within the minute: a crash loop, restarted after a second at the soonest.
            long second = cluster.leafProcess(1).pid();
            cluster.killLeaf(1);
            await(() -> leaf.supervision() != null && leaf.supervision().state().equals("crash_loop"),
                    "leaf 1 reported in a crash loop");
            assertThat(leaf.supervision().detail()).contains("pid " + second, "2 deaths in the last 1m: crash loop",
                    "restarting in 1000 ms");
            assertThat(get(cluster, "/cluster")).contains("\"state\":\"crash_loop\"");
            await(() -> cluster.leafProcess(1).pid() != second && leaf.state() == LeafStatus.State.UP,
                    "leaf 1 restarted again, later");
            assertThat(leaf.supervision().restarts()).isEqualTo(2);
            assertThat(leaf.supervision().state()).as("still within the window").isEqualTo("crash_loop");
        }
    }

    @Test
    void aRollingRestartUnderQueriesRestartsEveryLeafAndLosesNoPartition(@TempDir Path runDir) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(options(runDir).withSupervision(FAST)
                .withAdaptation(SHORT_SLOW_START), quiet())) {
            List<Long> before = List.of(cluster.leafProcess(0).pid(), cluster.leafProcess(1).pid(),
                    cluster.leafProcess(2).pid());
            Queue<String> problems = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            int[] answered = {0};
            Thread load = new Thread(() -> {
                while (running.get()) {
                    try {
                        SearchResult result = search(cluster);
                        answered[0]++;
                        if (result.tainted()) {
                            problems.add("tainted: " + result.errors());
                        }
                    } catch (RuntimeException e) {
                        problems.add("failed: " + e);
                    }
                }
            }, "test-load");
            load.start();

            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.httpPort() + "/admin/leaves/restart?rolling=true"))
                    .header("Authorization", "Bearer " + cluster.adminToken())
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            running.set(false);
            load.join();

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(answer.body()).contains("restarted 3 leaves one at a time", "leaf 0: pid " + before.get(0) + " -> ",
                    "leaf 2: pid " + before.get(2) + " -> ");
            for (int i = 0; i < 3; i++) {
                assertThat(cluster.leafProcess(i).pid()).as("leaf %d restarted", i).isNotEqualTo(before.get(i));
                assertThat(cluster.root().cluster().leaf(i).state()).isEqualTo(LeafStatus.State.UP);
                assertThat(cluster.root().cluster().leaf(i).supervision().restarts()).as("no death").isZero();
            }
            assertThat(answered[0]).as("searches during the restart").isPositive();
            assertThat(problems).as("of %d searches", answered[0]).isEmpty();
            assertThat(Files.readString(new RunDirectory(runDir).logFile("leaf-0"))).contains("leaf stopped (drained in");
        }
    }

    @Test
    void leavesGetTheClusterSecretFromAFileNotTheirCommandLine(@TempDir Path runDir) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(options(runDir), quiet())) {
            Path secretFile = runDir.resolve(ClusterSecret.FILE_NAME);
            String secret = ClusterSecret.read(secretFile);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secretFile))).isEqualTo("rw-------");
            // What ps shows every user of the machine.
            String commandLine = Files.readString(Path.of("/proc", Long.toString(cluster.leafProcess(0).pid()), "cmdline"))
                    .replace('\0', ' ');
            assertThat(commandLine).contains("--cluster-secret-file " + secretFile.toAbsolutePath())
                    .doesNotContain(secret);
            assertThat(search(cluster).tainted()).as("the root says the secret").isFalse();
        }
    }

    @Test
    void refusesToStartASecondClusterOnAnIndexARunningOneServes(@TempDir Path runDir, @TempDir Path otherRunDir)
            throws Exception {
        try (LocalCluster cluster = LocalCluster.start(options(runDir), quiet())) {
            assertThatThrownBy(() -> LocalCluster.start(options(otherRunDir), quiet()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("the index in " + index.dir() + " is served by a running cluster (pid "
                            + ProcessHandle.current().pid() + ", run dir " + runDir.toAbsolutePath())
                    .hasMessageContaining("stop it first");
            assertThat(ServingLock.holder(index.dir())).isPresent();
            assertThat(new RunDirectory(otherRunDir).liveProcesses()).as("no leaf started").isEmpty();
        }
        assertThat(ServingLock.holder(index.dir())).as("released on close").isEmpty();
    }

    /**
     * Waits for every partition (up to 30 s), so a result is tainted only when a partition had no
     * replica to answer, not when a cold restarted leaf was slower than the good-enough cutoff.
     */
    private static SearchResult search(LocalCluster cluster) {
        return cluster.client().search(SearchRequest.builder("alpha bravo").k(20).cache(false).minCoverage(1.0)
                .timeoutMillis(30_000).build()).join();
    }

    private static String get(LocalCluster cluster, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + cluster.httpPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Waits for what the cluster does on its own threads and processes; the bound is for one that never does. */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s", what).isNegative();
            Thread.sleep(10);
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream());
    }
}
