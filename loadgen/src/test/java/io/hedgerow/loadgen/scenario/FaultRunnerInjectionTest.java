package io.hedgerow.loadgen.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.loadgen.scenario.FakeRoot.Received;
import io.hedgerow.root.local.RunDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stalls, delay distributions and faults on "all" leaves, as the runner asks a root for them
 * ({@code /admin/leaves/{n}/stall}, {@code /admin/leaves/{n}/delay}, {@code GET /cluster}). A
 * {@link FakeRoot} records what is asked; the leaf's side of these endpoints has its own tests.
 */
class FaultRunnerInjectionTest {
    private static final Duration PHASE = Duration.ofSeconds(30);

    @TempDir
    Path run;

    private FakeRoot root;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @BeforeEach
    void startRoot() throws IOException {
        root = new FakeRoot(4);
    }

    @AfterEach
    void stopRoot() {
        root.close();
    }

    private FaultRunner runner() {
        return new FaultRunner(new RunDirectory(run), root.uri(), new PrintStream(log, true));
    }

    @Test
    void stallsALeafForThePhaseAndClearsItWhenThePhaseEnds() throws Exception {
        Fault.Stall stall = new Fault.Stall(Leaves.one(1), "150ms", "1s", null, null);
        root.answer("POST /admin/leaves/1/stall", 200, "{\"leaf\": 1, \"result\": \"stalling 150ms every 1s for 30s\"}");
        try (FaultRunner runner = runner()) {
            runner.requireLeaves(List.of(stall));
            assertThat(root.next()).as("the check clears, which changes nothing")
                    .isEqualTo(new Received("DELETE", "/admin/leaves/1/stall", ""));

            runner.startPhase(List.of(stall), PHASE);
            assertThat(root.next()).isEqualTo(new Received("POST", "/admin/leaves/1/stall",
                    "{\"stall_ms\": 150, \"every_ms\": 1000, \"duration_ms\": 30000}"));

            runner.endPhase();
            assertThat(root.next()).isEqualTo(new Received("DELETE", "/admin/leaves/1/stall", ""));
            assertThat(runner.failedActions()).isZero();
        }
        assertThat(root.pending()).as("nothing left to clear at close").isZero();
        assertThat(log.toString()).contains("fault: leaf 1 stall: stalling 150ms every 1s for 30s", "fault: leaf 1 stall: cleared");
    }

    @Test
    void stallsOnlyBetweenStartAndEnd() throws Exception {
        try (FaultRunner runner = runner()) {
            runner.startPhase(List.of(new Fault.Stall(Leaves.one(2), "20ms", "100ms", "50ms", "300ms")), PHASE);

            assertThat(root.next()).isEqualTo(new Received("POST", "/admin/leaves/2/stall",
                    "{\"stall_ms\": 20, \"every_ms\": 100, \"duration_ms\": 250}"));
            assertThat(root.next()).as("cleared at its end, before the phase's")
                    .isEqualTo(new Received("DELETE", "/admin/leaves/2/stall", ""));
        }
        assertThat(root.pending()).isZero();
    }

    @Test
    void delaysEveryLeafOfTheClusterWithItsOwnSeedAndTheDistributionAsked() throws Exception {
        Fault.Delay delay = new Fault.Delay(Leaves.ALL, "1s", 0.01, null, null, 42L, "exponential");
        List<Received> injections = new ArrayList<>();
        try (FaultRunner runner = runner()) {
            runner.startPhase(List.of(delay), PHASE);
            assertThat(root.next()).isEqualTo(new Received("GET", "/cluster", ""));
            for (int i = 0; i < 4; i++) {
                injections.add(root.next());
            }
        }
        assertThat(injections).extracting(Received::path).containsExactly("/admin/leaves/0/delay", "/admin/leaves/1/delay",
                "/admin/leaves/2/delay", "/admin/leaves/3/delay");
        assertThat(injections.getFirst().body()).isEqualTo("{\"delay_ms\": 1000.0, \"probability\": 0.01,"
                + " \"duration_ms\": 30000, \"seed\": 42, \"distribution\": \"exponential\"}");
        assertThat(injections).extracting(injection -> seedOf(injection.body()))
                .as("independent coin flips: a seed per leaf, never 0 (which lets the leaf choose)")
                .doesNotHaveDuplicates().doesNotContain(0L);
        List<Received> clears = List.of(root.next(), root.next(), root.next(), root.next());
        assertThat(clears).as("close clears every leaf").extracting(Received::toString).containsExactlyInAnyOrder(
                "DELETE /admin/leaves/0/delay", "DELETE /admin/leaves/1/delay", "DELETE /admin/leaves/2/delay",
                "DELETE /admin/leaves/3/delay");
    }

    @Test
    void readsTheClustersLeavesOnceAndChecksEachOne() throws Exception {
        Fault.Stall stall = new Fault.Stall(Leaves.ALL, "150ms", "1s", null, null);
        try (FaultRunner runner = runner()) {
            runner.requireLeaves(List.of(stall, new Fault.Delay(Leaves.ALL, "5ms", 0.5, null, null, null, null)));

            assertThat(root.next()).isEqualTo(new Received("GET", "/cluster", ""));
            List<String> checks = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                checks.add(root.next().toString());
            }
            assertThat(checks).containsExactly("DELETE /admin/leaves/0/stall", "DELETE /admin/leaves/1/stall",
                    "DELETE /admin/leaves/2/stall", "DELETE /admin/leaves/3/stall", "DELETE /admin/leaves/0/delay",
                    "DELETE /admin/leaves/1/delay", "DELETE /admin/leaves/2/delay", "DELETE /admin/leaves/3/delay");
        }
        assertThat(root.pending()).isZero();
    }

    @Test
    void refusesToStartAgainstARootWithoutStalls() throws Exception {
        root.answer("DELETE /admin/leaves/1/stall", 404, "{\"error\": \"not_found\", \"detail\": \"no such path:"
                + " /admin/leaves/1/stall (expected: /admin/leaves/{n}/restart or /admin/leaves/{n}/delay)\"}");
        try (FaultRunner runner = runner()) {
            assertThatThrownBy(() -> runner.requireLeaves(List.of(new Fault.Stall(Leaves.one(1), "150ms", "1s", null, null))))
                    .hasMessage("leaf 1 cannot be stalled: no such path: /admin/leaves/1/stall (expected:"
                            + " /admin/leaves/{n}/restart or /admin/leaves/{n}/delay) (stall faults need a cluster started"
                            + " with ./hedgerow local --fault-injection, by a Hedgerow whose root offers"
                            + " /admin/leaves/{n}/stall)");
        }
    }

    @Test
    void saysWhyItCannotFindTheLeavesOfTheCluster() throws Exception {
        root.answer("GET /cluster", 503, "{\"error\": \"unavailable\", \"detail\": \"starting\"}");
        try (FaultRunner runner = runner()) {
            assertThatThrownBy(() -> runner.requireLeaves(List.of(new Fault.Stall(Leaves.ALL, "150ms", "1s", null, null))))
                    .hasMessage("cannot list the leaves of the cluster: GET " + root.uri().resolve("/cluster")
                            + ": HTTP 503 starting");
        }
    }

    @Test
    void countsAnInjectionTheRootRefusesAndGoesOn() throws Exception {
        root.answer("POST /admin/leaves/0/delay", 400, "{\"error\": \"bad_request\", \"detail\": \"unknown field"
                + " 'distribution' (expected one of: delay_ms, probability, duration_ms, seed)\"}");
        try (FaultRunner runner = runner()) {
            runner.startPhase(List.of(new Fault.Delay(Leaves.one(0), "1s", 0.01, null, null, null, "fixed")), PHASE);
            assertThat(root.next().path()).isEqualTo("/admin/leaves/0/delay");

            runner.endPhase();

            assertThat(runner.failedActions()).isEqualTo(1);
        }
        assertThat(log.toString()).contains("fault: leaf 0 delay: HTTP 400 unknown field 'distribution' (expected one of:"
                + " delay_ms, probability, duration_ms, seed) (asked for {\"delay_ms\": 1000.0, \"probability\": 0.01,"
                + " \"duration_ms\": 30000, \"distribution\": \"fixed\"})");
    }

    private static long seedOf(String body) {
        String rest = body.substring(body.indexOf("\"seed\": ") + "\"seed\": ".length());
        return Long.parseLong(rest.substring(0, rest.indexOf(',')));
    }
}
