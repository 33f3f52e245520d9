package io.hedgerow.leaf.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What a lane worker does to its own CPU priority when it starts ({@code --lane-priority}), so the
 * operating system hands a core to cheap work the moment it wakes, even when the expensive search
 * holding the core belongs to another process on the same cores (several leaves, a root, load
 * generators). A thread may always lower its own priority; raising it back needs privileges, which
 * is why the lane has threads of its own rather than lowering whichever worker runs expensive work.
 *
 * <ul>
 *   <li>{@code idle}: Linux's {@code SCHED_IDLE} policy ({@code chrt --idle}): the thread runs on a
 *       core only while nothing else wants it (a sliver when something does), and any ordinary
 *       thread that wakes takes the core from it at once;</li>
 *   <li>{@code nice:N}: nice value N, 1 to 19 ({@code renice}): at 10 the thread gets about a tenth
 *       of a core an ordinary thread also wants, but waits up to a scheduler slice to be preempted;</li>
 *   <li>{@code normal}: unchanged.</li>
 * </ul>
 * Linux only, done with the {@code chrt} and {@code renice} commands on the thread's own id; where
 * that fails the lane runs at normal priority and {@link #lowerCallingThread()} says why. (Java's
 * thread priorities map to nothing on Linux unless the JVM is started with
 * {@code -XX:ThreadPriorityPolicy=1}, and cannot ask for {@code SCHED_IDLE}.)
 *
 * @param nice the nice value for {@code nice:N}; 0 otherwise
 */
public record LanePriority(Kind kind, int nice) {
    /** How the priority is lowered. */
    public enum Kind { NORMAL, NICE, IDLE }

    public static final LanePriority NORMAL = new LanePriority(Kind.NORMAL, 0);
    public static final LanePriority IDLE = new LanePriority(Kind.IDLE, 0);

    public LanePriority {
        if (kind == Kind.NICE ? nice < 1 || nice > 19 : nice != 0) {
            throw new IllegalArgumentException("lane priority nice: " + nice
                    + " (expected: 1..19 for nice:N, nothing otherwise)");
        }
    }

    /** {@code idle}, {@code normal} or {@code nice:N} (N from 1 to 19). */
    public static LanePriority parse(String value) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("idle")) {
            return IDLE;
        }
        if (text.equals("normal")) {
            return NORMAL;
        }
        if (text.startsWith("nice:")) {
            try {
                int nice = Integer.parseInt(text.substring("nice:".length()));
                if (nice >= 1 && nice <= 19) {
                    return new LanePriority(Kind.NICE, nice);
                }
            } catch (NumberFormatException e) {
                // falls through to the message below
            }
        }
        throw new IllegalArgumentException("lane priority: '" + value + "' (expected: idle, normal or nice:N with N"
                + " from 1 to 19)");
    }

    /**
     * Lowers the calling thread as asked.
     *
     * @return what the thread runs at, and why not lowered when it is not
     */
    public String lowerCallingThread() {
        if (kind == Kind.NORMAL) {
            return "normal";
        }
        String tid;
        try {
            tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString(); // <pid>/task/<tid>
        } catch (IOException | UnsupportedOperationException e) {
            return "normal (no /proc/thread-self: not Linux?)";
        }
        List<String> command = kind == Kind.IDLE ? List.of("chrt", "--idle", "-p", "0", tid)
                : List.of("renice", "-n", String.valueOf(nice), "-p", tid);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "normal (" + command.get(0) + " did not answer)";
            }
            if (process.exitValue() != 0) {
                String why = new String(process.getInputStream().readAllBytes()).strip();
                return "normal (" + String.join(" ", command) + " failed: " + (why.isEmpty() ? "exit "
                        + process.exitValue() : why) + ")";
            }
            return toString();
        } catch (IOException e) {
            return "normal (no " + command.get(0) + " command: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "normal (interrupted)";
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case NORMAL -> "normal";
            case IDLE -> "idle";
            case NICE -> "nice:" + nice;
        };
    }
}
