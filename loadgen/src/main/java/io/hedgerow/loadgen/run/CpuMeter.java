package io.hedgerow.loadgen.run;

import io.hedgerow.loadgen.report.RootView;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the CPU time spent so far by the whole machine ({@code /proc/stat}: Linux only) and by
 * this process, so a phase can say what it cost in cores: on a local cluster the machine's busy
 * time less the generator's and the root's is the leaves'.
 *
 * <p><b>Assumptions and guarantees.</b> Stateless apart from the file it reads; safe from any thread.
 */
final class CpuMeter {
    private final Path procStat;

    /**
     * One reading.
     *
     * @param machineBusyTicks ticks the machine's cores were busy (not idle or waiting for I/O), all
     *                         cores together; -1 when {@code /proc/stat} cannot be read
     * @param machineTicks     ticks of all cores, busy or not
     * @param cores            cores the machine's ticks are of
     * @param ownCpuNanos      this process's CPU time; -1 when the JVM cannot tell
     */
    record Reading(long wallNanos, long machineBusyTicks, long machineTicks, int cores, long ownCpuNanos) {
    }

    CpuMeter() {
        this(Path.of("/proc/stat"));
    }

    CpuMeter(Path procStat) {
        this.procStat = procStat;
    }

    Reading read() {
        long own = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            own = os.getProcessCpuTime();
        }
        long busy = -1;
        long total = 0;
        int cores = 0;
        try {
            List<String> lines = Files.readAllLines(procStat);
            for (String line : lines) {
                if (line.startsWith("cpu ")) {
                    // user nice system idle iowait irq softirq steal (guest time is inside user already)
                    String[] f = line.trim().split("\\s+");
                    long sum = 0;
                    for (int i = 1; i <= Math.min(8, f.length - 1); i++) {
                        sum += Long.parseLong(f[i]);
                    }
                    total = sum;
                    busy = sum - Long.parseLong(f[4]) - (f.length > 5 ? Long.parseLong(f[5]) : 0);
                } else if (line.startsWith("cpu")) {
                    cores++;
                }
            }
        } catch (IOException | RuntimeException e) {
            busy = -1; // not Linux, or not readable: the machine's share stays unknown
        }
        return new Reading(System.nanoTime(), busy, total, cores, own);
    }

    /**
     * Cores busy on average between two readings: the machine's, this process's, and the root's
     * from its own CPU counter ({@code rootCpuNanos}, null when the root does not export it).
     */
    static RootView.Cpu between(Reading before, Reading after, Double rootCpuNanos) {
        double wall = after.wallNanos() - before.wallNanos();
        if (!(wall > 0)) {
            return null;
        }
        Double machine = before.machineBusyTicks() < 0 || after.machineBusyTicks() < 0
                || after.machineTicks() <= before.machineTicks() ? null
                : (double) (after.machineBusyTicks() - before.machineBusyTicks())
                        / (after.machineTicks() - before.machineTicks()) * after.cores();
        Double generator = before.ownCpuNanos() < 0 || after.ownCpuNanos() < 0 ? null
                : (after.ownCpuNanos() - before.ownCpuNanos()) / wall;
        Double root = rootCpuNanos == null ? null : rootCpuNanos / wall;
        return new RootView.Cpu(machine, generator, root);
    }
}
