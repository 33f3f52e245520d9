package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Processor sharing on a virtual clock, each case worked out by hand. */
class ProcessorSharingTest {
    private final EventQueue clock = new EventQueue();
    private final List<String> done = new ArrayList<>();

    private SharedCpu.Job run(SharedCpu cpu, long work, String name) {
        return cpu.run(work, () -> done.add(name + "@" + clock.nanoTime()));
    }

    private void runAll() {
        while (clock.runNext()) {
            // events in time order
        }
    }

    @Test
    void jobsUpToTheCoreCountEachRunAtFullSpeed() {
        SharedCpu cpu = new ProcessorSharing(2, clock);
        run(cpu, 1_000, "a");
        run(cpu, 3_000, "b");

        runAll();

        assertThat(done).containsExactly("a@1000", "b@3000");
        assertThat(cpu.busyCoreNanos()).isCloseTo(4_000, within(1e-6));
    }

    @Test
    void moreJobsThanCoresShareThemEvenly() {
        // Three jobs of 1,000 ns on 2 cores: each at 2/3 speed, all done at 1,500 ns.
        SharedCpu cpu = new ProcessorSharing(2, clock);
        run(cpu, 1_000, "a");
        run(cpu, 1_000, "b");
        run(cpu, 1_000, "c");

        runAll();

        assertThat(done).containsExactly("a@1500", "b@1500", "c@1500");
        assertThat(cpu.busyCoreNanos()).as("both cores busy for 1,500 ns").isCloseTo(3_000, within(1e-6));
    }

    @Test
    void aJobArrivingLaterSlowsTheOnesRunning() {
        // One core. a (1,000 ns) alone until 500, then with b (1,000 ns): each at half speed. a has
        // 500 left, done at 1,500; b has 500 left then, alone: done at 2,000.
        SharedCpu cpu = new ProcessorSharing(1, clock);
        run(cpu, 1_000, "a");
        clock.at(500, () -> run(cpu, 1_000, "b"));

        runAll();

        assertThat(done).containsExactly("a@1500", "b@2000");
    }

    @Test
    void aStoppedJobNeverFinishesAndGivesBackItsShare() {
        // One core, a and b of 1,000 ns each at half speed; b stopped at 400 (200 done, 800 left):
        // a has 800 left at 400, alone from then: done at 1,200.
        SharedCpu cpu = new ProcessorSharing(1, clock);
        run(cpu, 1_000, "a");
        SharedCpu.Job b = run(cpu, 1_000, "b");
        double[] left = new double[1];
        clock.at(400, () -> left[0] = cpu.stop(b));

        runAll();

        assertThat(done).containsExactly("a@1200");
        assertThat(left[0]).isCloseTo(800, within(1e-6));
        assertThat(b.over()).isTrue();
        assertThat(cpu.stop(b)).as("stopping it again").isZero();
    }

    @Test
    void aSuspendedJobKeepsItsWorkUntilResumed() {
        // Two cores, a of 1,000 ns suspended from 300 to 800 (a process stopped): done at 1,500.
        SharedCpu cpu = new ProcessorSharing(2, clock);
        SharedCpu.Job a = run(cpu, 1_000, "a");
        clock.at(300, () -> cpu.suspend(a));
        clock.at(800, () -> cpu.resume(a));

        runAll();

        assertThat(done).containsExactly("a@1500");
        assertThat(cpu.busyCoreNanos()).as("a suspended job does no work").isCloseTo(1_000, within(1e-6));
    }

    @Test
    void aJobStartedFromAnotherJobsCompletionRunsOnTheFreedCore() {
        SharedCpu cpu = new ProcessorSharing(1, clock);
        cpu.run(1_000, () -> run(cpu, 500, "next"));
        run(cpu, 3_000, "long");

        runAll();

        // 0-2,000: both at half speed (the first done at 2,000, long has 2,000 left); 2,000-3,000:
        // next and long at half speed (next done at 3,000, long has 1,500 left); then long alone.
        assertThat(done).containsExactly("next@3000", "long@4500");
    }

    @Test
    void refusesNoCores() {
        assertThatThrownBy(() -> new ProcessorSharing(0, clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cores: 0");
    }
}
