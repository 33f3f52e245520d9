package io.hedgerow.root.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Least attained service on a virtual clock, each case worked out by hand. */
class LeastAttainedServiceTest {
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
    void aShortJobArrivingRunsAtOnceAheadOfALongOne() {
        // One core. a (10,000 ns) alone until 1,000; b (500 ns) has had no CPU: it takes the core and
        // is done at 1,500; a then goes on, 9,000 left: done at 10,500. Processor sharing would have
        // finished b at 2,000.
        SharedCpu cpu = new LeastAttainedService(1, clock);
        run(cpu, 10_000, "a");
        clock.at(1_000, () -> run(cpu, 500, "b"));

        runAll();

        assertThat(done).containsExactly("b@1500", "a@10500");
        assertThat(cpu.busyCoreNanos()).isCloseTo(10_500, within(1e-6));
    }

    @Test
    void aLowerGroupCatchesUpAndThenShares() {
        // One core. a (3,000 ns) alone until 1,000 (1,000 had); b (3,000 ns) arrives and runs alone
        // until it has had 1,000 too, at 2,000; then both share: each needs 2,000 more at half speed,
        // both done at 6,000.
        SharedCpu cpu = new LeastAttainedService(1, clock);
        run(cpu, 3_000, "a");
        clock.at(1_000, () -> run(cpu, 3_000, "b"));

        runAll();

        assertThat(done).containsExactly("a@6000", "b@6000");
    }

    @Test
    void coresGoToTheLeastServedFirstAndTheRestShareWhatIsLeft() {
        // Two cores. a and b (5,000 ns each) from 0; c (1,000 ns) at 1,000 has had least: a full
        // core; a and b share the other, 0.5 each, until c is done at 2,000 (a, b had 1,500); then a
        // and b at full speed, 3,500 left: done at 5,500.
        SharedCpu cpu = new LeastAttainedService(2, clock);
        run(cpu, 5_000, "a");
        run(cpu, 5_000, "b");
        clock.at(1_000, () -> run(cpu, 1_000, "c"));

        runAll();

        assertThat(done).containsExactly("c@2000", "a@5500", "b@5500");
        assertThat(cpu.busyCoreNanos()).isCloseTo(11_000, within(1e-6));
    }

    @Test
    void aSuspendedJobKeepsItsWorkAndAStoppedOneGivesItsShareBack() {
        // One core. a (2,000 ns) suspended at 500 (1,500 left) and resumed at 3,000; b (1,000 ns)
        // from 1,000 alone: done at 2,000. a alone from 3,000: done at 4,500. c stopped unfinished.
        SharedCpu cpu = new LeastAttainedService(1, clock);
        SharedCpu.Job a = run(cpu, 2_000, "a");
        clock.at(500, () -> cpu.suspend(a));
        clock.at(1_000, () -> run(cpu, 1_000, "b"));
        clock.at(3_000, () -> cpu.resume(a));
        double[] left = new double[1];
        clock.at(5_000, () -> {
            SharedCpu.Job c = run(cpu, 1_000, "c");
            clock.at(5_400, () -> left[0] = cpu.stop(c));
        });

        runAll();

        assertThat(done).containsExactly("b@2000", "a@4500");
        assertThat(left[0]).isCloseTo(600, within(1e-6));
        assertThat(cpu.running()).isZero();
    }
}
