package io.hedgerow.loadgen.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Raises the calling thread, the generator's one event loop, to a real-time scheduling class
 * ({@code SCHED_RR}, priority {@value #PRIORITY}) so that it sends on time while the server JVMs
 * on the same cores keep them busy. Only that thread: the generator's collector and compiler
 * threads stay ordinary, and so do the servers. The loop spends its time blocked in
 * {@code epoll_wait}, so it takes the CPU only for the moments it sends and reads, and the kernel's
 * real-time throttling bounds it even if it did not.
 *
 * <p>Measured on the 2-core machine at 250 req/s of the default request, the cluster on the same
 * cores: generator lag p99 2.97 ms at normal priority, 0.42 ms raised; the answers' p99 the same
 * (17.0 ms).
 *
 * <p>Linux only, and it needs the right to (root, or {@code CAP_SYS_NICE}) and the {@code chrt}
 * command; otherwise the loop runs at normal priority, and {@link #raise()} says why.
 */
public final class LoopPriority {
    static final int PRIORITY = 10;

    private LoopPriority() {
    }

    /**
     * Raises the calling thread.
     *
     * @return a line for the run's settings: what the loop runs at, and why not raised when it is not
     */
    public static String raise() {
        long tid;
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "<pid>/task/<tid>"
            tid = Long.parseLong(self.getFileName().toString());
        } catch (IOException | UnsupportedOperationException | NumberFormatException e) {
            return "normal (no /proc/thread-self: not Linux?)";
        }
        try {
            Process chrt = new ProcessBuilder("chrt", "-r", "-p", String.valueOf(PRIORITY), String.valueOf(tid))
                    .redirectErrorStream(true).start();
            if (!chrt.waitFor(5, TimeUnit.SECONDS)) {
                chrt.destroyForcibly();
                return "normal (chrt did not answer)";
            }
            if (chrt.exitValue() != 0) {
                String why = new String(chrt.getInputStream().readAllBytes()).strip();
                return "normal (chrt -r -p " + PRIORITY + " failed: " + (why.isEmpty() ? "exit " + chrt.exitValue() : why)
                        + "; run as root or with CAP_SYS_NICE for on-time sends)";
            }
            return "real-time (SCHED_RR " + PRIORITY + ", the event loop thread only)";
        } catch (IOException e) {
            return "normal (no chrt command: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "normal (interrupted)";
        }
    }
}
