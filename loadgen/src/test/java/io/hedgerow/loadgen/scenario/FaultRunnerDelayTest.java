package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.leaf.fault.InjectedDelay;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.embedded.EmbeddedCluster;
import io.hedgerow.root.local.RunDirectory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delay faults end to end: the runner asks a real root's admin endpoint, the root asks the leaf,
 * and the leaf's own state shows the delay come and go. An embedded cluster stands in for
 * {@code ./hedgerow local --fault-injection}; both offer the same endpoint.
 */
class FaultRunnerDelayTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    static Path data;

    private static EmbeddedCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = start("faulty", true);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void delaysTheLeafForThePhaseAndClearsItWhenThePhaseEnds() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Fault.Delay delay = new Fault.Delay(1, "50ms", 0.25, null, null, 7L);
        try (FaultRunner runner = runner(cluster, log)) {
            runner.requireLeaves(List.of(delay));
            runner.startPhase(List.of(delay), Duration.ofSeconds(30));
            await(() -> delayAt(1).isPresent(), "leaf 1 delayed");

            assertThat(delayAt(1)).contains(new InjectedDelay(Duration.ofMillis(50).toNanos(), 0.25,
                    Duration.ofSeconds(30).toNanos(), 7));
            assertThat(delayAt(0)).isEmpty();

            runner.endPhase();
            assertThat(delayAt(1)).as("cleared when the phase ends").isEmpty();
        }
        assertThat(log.toString()).contains(
                "fault: leaf 1 delay: delaying sub-requests by 50ms with probability 0.25 for 30s (seed 7)",
                "fault: leaf 1 delay: cleared");
    }

    @Test
    void clearsTheDelayAtItsEndWithinThePhase() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (FaultRunner runner = runner(cluster, log)) {
            runner.startPhase(List.of(new Fault.Delay(0, "20ms", 1.0, "100ms", "400ms", null)), Duration.ofSeconds(30));
            await(() -> log.toString().contains("fault: leaf 0 delay: cleared"), "the runner clearing leaf 0");

            assertThat(log.toString()).contains("fault: leaf 0 delay: delaying sub-requests by 20ms with probability 1.0 for 300ms");
            assertThat(delayAt(0)).isEmpty();
        }
    }

    @Test
    void closeClearsADelayInEffect() throws Exception {
        FaultRunner runner = runner(cluster, new ByteArrayOutputStream());
        runner.startPhase(List.of(new Fault.Delay(1, "5ms", 0.5, null, null, null)), Duration.ofSeconds(30));
        await(() -> delayAt(1).isPresent(), "leaf 1 delayed");

        runner.close();

        assertThat(delayAt(1)).isEmpty();
    }

    @Test
    void refusesToStartAgainstLeavesThatCannotBeDelayed() throws Exception {
        try (FaultRunner runner = runner(cluster, new ByteArrayOutputStream())) {
            assertThatThrownBy(() -> runner.requireLeaves(List.of(new Fault.Delay(5, "5ms", 1.0, null, null, null))))
                    .hasMessage("leaf 5 cannot be delayed: leaf 5 (expected: 0..1)");
        }
        try (EmbeddedCluster plain = start("plain", false);
             FaultRunner runner = runner(plain, new ByteArrayOutputStream())) {
            assertThatThrownBy(() -> runner.requireLeaves(List.of(new Fault.Delay(0, "5ms", 1.0, null, null, null))))
                    .hasMessageStartingWith("leaf 0 cannot be delayed: no such path: /admin/leaves/0/delay")
                    .hasMessageEndingWith("(delay faults need a cluster started with ./hedgerow local --fault-injection)");
        }
    }

    private static EmbeddedCluster start(String name, boolean faultInjection) throws Exception {
        List<SourceDocument> documents = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            documents.add(new SourceDocument("doc-" + i, Map.of("title", "hedge " + i, "body", "bramble and hawthorn " + i), i + 1));
        }
        return EmbeddedCluster.builder(data)
                .documents(name, IndexConfig.defaults(), documents)
                .leaves(2).partitions(2).replicas(2)
                .faultInjection(faultInjection)
                .http(0)
                .start();
    }

    private static FaultRunner runner(EmbeddedCluster target, ByteArrayOutputStream log) throws java.io.IOException {
        // As ./hedgerow local does, so the runner finds the token where it looks for it.
        java.nio.file.Files.createDirectories(data.resolve("run"));
        java.nio.file.Files.writeString(data.resolve("run").resolve("admin-token"), target.adminToken());
        return new FaultRunner(new RunDirectory(data.resolve("run")), URI.create("http://127.0.0.1:" + target.httpPort() + "/"),
                new PrintStream(log, true));
    }

    private static java.util.Optional<InjectedDelay> delayAt(int leaf) {
        return cluster.leaves().get(leaf).injectedDelay();
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting for %s", what).isNegative();
            Thread.onSpinWait();
        }
    }
}
