package io.hedgerow.loadgen.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.hedgerow.loadgen.report.RootView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuMeterTest {
    @TempDir
    Path folder;

    /** A two-core machine's /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice. */
    private Path stat(long user, long system, long idle, long iowait) throws IOException {
        return Files.writeString(folder.resolve("stat"), """
                cpu  %d 0 %d %d %d 0 0 0 0 0
                cpu0 0 0 0 0 0 0 0 0 0 0
                cpu1 0 0 0 0 0 0 0 0 0 0
                intr 12345
                """.formatted(user, system, idle, iowait));
    }

    @Test
    void readsTheMachinesBusyTicksAsAllButIdleAndIoWait() throws IOException {
        CpuMeter.Reading reading = new CpuMeter(stat(300, 100, 500, 100)).read();

        assertThat(reading.machineTicks()).isEqualTo(1000);
        assertThat(reading.machineBusyTicks()).isEqualTo(400);
        assertThat(reading.cores()).isEqualTo(2);
        assertThat(reading.ownCpuNanos()).as("this JVM's own CPU time").isPositive();
    }

    @Test
    void turnsTwoReadingsIntoCoresBusyOnAverage() {
        // 1 s apart: 300 of 400 ticks busy on 2 cores = 1.5 cores; the generator spent 0.2 s, the root 0.5 s.
        CpuMeter.Reading before = new CpuMeter.Reading(0, 1_000, 2_000, 2, 100_000_000L);
        CpuMeter.Reading after = new CpuMeter.Reading(1_000_000_000L, 1_300, 2_400, 2, 300_000_000L);

        RootView.Cpu cpu = CpuMeter.between(before, after, 500_000_000.0);

        assertThat(cpu.machineCores()).isCloseTo(1.5, within(1e-9));
        assertThat(cpu.generatorCores()).isCloseTo(0.2, within(1e-9));
        assertThat(cpu.rootCores()).isCloseTo(0.5, within(1e-9));
        assertThat(cpu.others()).as("the leaves, on a local cluster").isCloseTo(0.8, within(1e-9));
    }

    @Test
    void leavesWhatItCannotReadUnknownRatherThanZero() throws IOException {
        CpuMeter.Reading reading = new CpuMeter(folder.resolve("no-such-file")).read();
        assertThat(reading.machineBusyTicks()).isEqualTo(-1);

        RootView.Cpu cpu = CpuMeter.between(reading, new CpuMeter(folder.resolve("no-such-file")).read(), null);

        assertThat(cpu.machineCores()).isNull();
        assertThat(cpu.rootCores()).isNull();
        assertThat(cpu.others()).isNull();
    }
}
