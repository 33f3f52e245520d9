package io.hedgerow.loadgen.scenario;

import static io.hedgerow.loadgen.scenario.SleepingLeaves.await;
import static io.hedgerow.loadgen.scenario.SleepingLeaves.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.hedgerow.loadgen.scenario.FakeRoot.Received;
import io.hedgerow.loadgen.scenario.FaultEvent.Outcome;
import io.hedgerow.root.local.RunDirectory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pauses, kills and rolling restarts against real processes: {@link SleepingLeaves} stand in for a
 * local cluster's leaf JVMs (found through the same pid files) and a {@link FakeRoot} for the
 * root's restart endpoint, so what is asserted is what the kernel says about each process
 * ({@code /proc/<pid>/stat}, the signal it died of) and what the phase's record says.
 */
class FaultRunnerProcessTest {
    private static final Duration PHASE = Duration.ofSeconds(30);
    /** A process killed by signal N exits with 128 + N. */
    private static final int SIGKILLED = 128 + 9;
    private static final int SIGTERMINATED = 128 + 15;

    @TempDir
    Path dir;

    private RunDirectory run;
    private FakeRoot root;
    private final BlockingQueue<FaultEvent> events = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @BeforeEach
    void startRoot() throws IOException {
        run = new RunDirectory(dir.resolve("run"));
        root = new FakeRoot(3);
    }

    @AfterEach
    void stopRoot() {
        root.close();
    }

    private FaultRunner runner() {
        return new FaultRunner(run, root.uri(), new PrintStream(log, true), events::add);
    }

    /** The next event recorded, waiting for it. */
    private FaultEvent nextEvent() throws InterruptedException {
        FaultEvent event = events.poll(SleepingLeaves.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(event).as("an event within %s; log so far:%n%s", SleepingLeaves.PATIENCE, log).isNotNull();
        return event;
    }

    @Test
    void stopsTheLeafForItsPauseThenLetsItRunAgain() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 2);
             FaultRunner runner = runner()) {
            long pid = leaves.process(1).pid();
            runner.startPhase(List.of(new Fault.Pause(1, "1s", "1h", null)), PHASE);

            await(() -> state(pid) == 'T', "leaf 1 stopped (state T)");
            assertThat(leaves.state(0)).as("the other leaf runs on").isEqualTo('S');
            await(() -> state(pid) == 'S', "leaf 1 running again after its pause");

            PhaseFaults faults = runner.endPhase();
            assertThat(faults.events()).extracting(FaultEvent::action, FaultEvent::outcome, FaultEvent::detail).containsExactly(
                    tuple("pause", Outcome.APPLIED, "SIGSTOP to pid " + pid + " for 1000 ms"),
                    tuple("resume", Outcome.UNDONE, "SIGCONT to pid " + pid));
            assertThat(faults.events()).extracting(FaultEvent::fault, FaultEvent::leaf).containsOnly(tuple("pause", Leaves.one(1)));
            assertThat(faults.clean()).isTrue();
            assertThat(faults.summary()).isEqualTo("pause leaf 1: 1 applied");
        }
    }

    @Test
    void endingThePhaseResumesALeafInTheMiddleOfItsPause() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1);
             FaultRunner runner = runner()) {
            runner.startPhase(List.of(new Fault.Pause(0, "10m", "1h", null)), PHASE);
            assertThat(nextEvent().action()).isEqualTo("pause");
            await(() -> leaves.state(0) == 'T', "leaf 0 stopped (state T): a SIGSTOP takes effect a moment after it is sent");

            PhaseFaults faults = runner.endPhase();

            assertThat(leaves.state(0)).as("running again as soon as the phase ends").isNotEqualTo('T');
            assertThat(faults.events()).extracting(FaultEvent::action, FaultEvent::outcome)
                    .containsExactly(tuple("pause", Outcome.APPLIED), tuple("resume", Outcome.UNDONE));
        }
    }

    @Test
    void killsTheLeafAndRestartsItThroughTheRootWhenThePhaseEnds() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 2);
             FaultRunner runner = runner()) {
            root.restartWith(leaves::restart);
            Process killed = leaves.process(1);
            runner.startPhase(List.of(new Fault.Kill(1, "0s", null)), PHASE);

            assertThat(killed.waitFor(SleepingLeaves.PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("leaf 1 gone").isTrue();
            assertThat(killed.exitValue()).as("killed by SIGKILL").isEqualTo(SIGKILLED);
            assertThat(root.pending()).as("not restarted before the phase ends").isZero();

            PhaseFaults faults = runner.endPhase();

            assertThat(root.next()).isEqualTo(new Received("POST", "/admin/leaves/1/restart", ""));
            Process restarted = leaves.process(1);
            assertThat(restarted.pid()).isNotEqualTo(killed.pid());
            assertThat(restarted.isAlive()).isTrue();
            assertThat(Files.readString(run.pidFile("leaf-1")).strip()).isEqualTo(Long.toString(restarted.pid()));
            assertThat(faults.events()).extracting(FaultEvent::action, FaultEvent::outcome, FaultEvent::detail).containsExactly(
                    tuple("kill", Outcome.APPLIED, "SIGKILL to pid " + killed.pid()),
                    tuple("restart", Outcome.UNDONE, "HTTP 200: leaf 1 restarted as pid " + restarted.pid()));
            assertThat(faults.clean()).isTrue();
            assertThat(leaves.process(0).isAlive()).as("the other leaf untouched").isTrue();
        }
    }

    @Test
    void restartsAKilledLeafAtItsRestartTimeAndOnlyOnce() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1);
             FaultRunner runner = runner()) {
            root.restartWith(leaves::restart);
            runner.startPhase(List.of(new Fault.Kill(0, "0s", "100ms")), PHASE);

            assertThat(root.next()).as("restarted within the phase").isEqualTo(new Received("POST", "/admin/leaves/0/restart", ""));
            PhaseFaults faults = runner.endPhase();

            assertThat(root.pending()).as("not restarted again when the phase ends").isZero();
            assertThat(faults.applied()).isEqualTo(1);
            assertThat(faults.undone()).isEqualTo(1);
            assertThat(leaves.process(0).isAlive()).isTrue();
        }
    }

    @Test
    void aKillWithoutAPidFileFailsAndMakesThePhaseUnclean() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1);
             FaultRunner runner = runner()) {
            runner.startPhase(List.of(new Fault.Kill(2, "0s", null), new Fault.Pause(0, "10ms", "1h", null)), PHASE);
            List<FaultEvent> seen = List.of(nextEvent(), nextEvent());
            assertThat(seen).extracting(FaultEvent::action).containsExactlyInAnyOrder("kill", "pause");

            PhaseFaults faults = runner.endPhase();

            FaultEvent failure = faults.events().stream().filter(event -> event.outcome() == Outcome.FAILED).findFirst().orElseThrow();
            assertThat(failure.fault()).isEqualTo("kill");
            assertThat(failure.leaf()).isEqualTo(Leaves.one(2));
            assertThat(failure.detail()).isEqualTo("no pid file " + run.pidFile("leaf-2"));
            assertThat(faults.failed()).isEqualTo(1);
            assertThat(faults.clean()).isFalse();
            assertThat(faults.neverApplied()).containsExactly("kill leaf 2 (every attempt failed)");
            assertThat(faults.summary()).isEqualTo("FAILED: kill leaf 2 (no pid file " + run.pidFile("leaf-2") + "); pause leaf 0: 1 applied");
            assertThat(runner.failedActions()).isEqualTo(1);
            assertThat(root.pending()).as("nothing to restart").isZero();
        }
        assertThat(log.toString()).contains("fault: cannot kill leaf 2: no pid file " + run.pidFile("leaf-2"));
    }

    @Test
    void aFaultDueAfterThePhaseEndsIsNeverApplied() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1);
             FaultRunner runner = runner()) {
            // As a kill at 10 s in a phase that --phase-duration shortened: the phase ends first.
            runner.startPhase(List.of(new Fault.Kill(0, "10s", null)), Duration.ofSeconds(5));

            PhaseFaults faults = runner.endPhase();

            assertThat(leaves.process(0).isAlive()).isTrue();
            assertThat(faults.events()).isEmpty();
            assertThat(faults.clean()).isFalse();
            assertThat(faults.neverApplied()).singleElement().asString()
                    .startsWith("kill leaf 0 (due at 10s, after the phase's end at ");
            assertThat(faults.summary()).startsWith("NOT APPLIED: kill leaf 0 (due at 10s");
        }
    }

    @Test
    void restartsEveryLeafInTurnWithSigtermThenTheRoot() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 3);
             FaultRunner runner = runner()) {
            List<Process> before = List.of(leaves.process(0), leaves.process(1), leaves.process(2));
            List<String> downAtRestart = new ArrayList<>();
            root.restartWith(leaf -> {
                // What a deploy must never do: take a leaf down while another is still down.
                for (int other = 0; other < 3; other++) {
                    if (!leaves.process(other).isAlive()) {
                        downAtRestart.add("leaf " + other + " down when leaf " + leaf + " restarts");
                    }
                }
                return leaves.restart(leaf);
            });

            runner.startPhase(List.of(new Fault.Restart(Leaves.ALL, "100ms", null, null)), PHASE);

            assertThat(root.next()).isEqualTo(new Received("GET", "/cluster", ""));
            List<String> restarts = List.of(root.next().path(), root.next().path(), root.next().path());
            assertThat(restarts).as("in leaf order").containsExactly("/admin/leaves/0/restart", "/admin/leaves/1/restart",
                    "/admin/leaves/2/restart");
            PhaseFaults faults = runner.endPhase();

            assertThat(before).extracting(Process::exitValue).as("each stopped by SIGTERM").containsOnly(SIGTERMINATED);
            assertThat(downAtRestart).containsExactly("leaf 0 down when leaf 0 restarts", "leaf 1 down when leaf 1 restarts",
                    "leaf 2 down when leaf 2 restarts");
            for (int leaf = 0; leaf < 3; leaf++) {
                assertThat(leaves.process(leaf).isAlive()).isTrue();
                assertThat(Files.readString(run.pidFile("leaf-" + leaf)).strip()).as("the new pid, for the next fault")
                        .isEqualTo(Long.toString(leaves.process(leaf).pid()));
            }
            assertThat(faults.events()).extracting(event -> event.action() + " " + event.leaf() + " " + event.outcome())
                    .containsExactly("stop 0 APPLIED", "restart 0 UNDONE", "stop 1 APPLIED", "restart 1 UNDONE",
                            "stop 2 APPLIED", "restart 2 UNDONE");
            assertThat(faults.events().getFirst().detail()).startsWith("SIGTERM to pid " + before.getFirst().pid() + ", exited after ");
            assertThat(faults.clean()).isTrue();
            assertThat(faults.summary()).isEqualTo("restart leaf 0: 1 applied; restart leaf 1: 1 applied; restart leaf 2: 1 applied");
        }
    }

    @Test
    void killsALeafThatOutlastsItsGraceAndStillRestartsIt() throws Exception {
        // A leaf that ignores SIGTERM, as one stuck in its shutdown would be.
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1, List.of("sh", "-c", "trap '' TERM; exec sleep 600"));
             FaultRunner runner = runner()) {
            root.restartWith(leaves::restart);
            Process stuck = leaves.process(0);

            runner.startPhase(List.of(new Fault.Restart(Leaves.one(0), null, null, "200ms")), PHASE);

            assertThat(root.next()).isEqualTo(new Received("POST", "/admin/leaves/0/restart", ""));
            PhaseFaults faults = runner.endPhase();
            assertThat(stuck.exitValue()).as("killed after the grace").isEqualTo(SIGKILLED);
            assertThat(faults.events().getFirst().detail())
                    .isEqualTo("SIGTERM to pid " + stuck.pid() + ", still running after 0.2s: SIGKILL");
            assertThat(faults.clean()).isTrue();
        }
    }

    @Test
    void theUndoRestartsALeafWhoseRestartFailed() throws Exception {
        try (SleepingLeaves leaves = SleepingLeaves.start(run, 1);
             FaultRunner runner = runner()) {
            root.restartWith(leaves::restart);
            root.answer("POST /admin/leaves/0/restart", 503, "{\"error\": \"unavailable\", \"detail\": \"busy\"}");
            runner.startPhase(List.of(new Fault.Restart(Leaves.one(0), null, null, null)), PHASE);
            assertThat(root.next().path()).isEqualTo("/admin/leaves/0/restart");
            assertThat(List.of(nextEvent(), nextEvent())).extracting(FaultEvent::action, FaultEvent::outcome)
                    .containsExactly(tuple("stop", Outcome.APPLIED), tuple("restart", Outcome.FAILED));
            assertThat(leaves.process(0).isAlive()).as("down after the refused restart").isFalse();
            root.unscript("POST /admin/leaves/0/restart");

            PhaseFaults faults = runner.endPhase();

            assertThat(root.next().path()).as("tried again by the undo").isEqualTo("/admin/leaves/0/restart");
            assertThat(leaves.process(0).isAlive()).isTrue();
            assertThat(faults.events()).extracting(FaultEvent::action, FaultEvent::outcome).containsExactly(
                    tuple("stop", Outcome.APPLIED), tuple("restart", Outcome.FAILED), tuple("restart", Outcome.UNDONE));
            assertThat(faults.clean()).as("a restart failed").isFalse();
            assertThat(faults.summary()).isEqualTo("FAILED: restart leaf 0 (HTTP 503: busy); restart leaf 0: 1 applied");
        }
    }
}
