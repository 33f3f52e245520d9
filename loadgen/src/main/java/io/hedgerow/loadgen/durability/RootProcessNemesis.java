package io.hedgerow.loadgen.durability;

import io.hedgerow.loadgen.scenario.LeafProcesses;
import io.hedgerow.root.local.RunDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

/**
 * Kills (SIGKILL) or pauses (SIGSTOP) one root process, chosen at random, of a cluster whose roots
 * run as processes of their own, apart from the leaves ({@code benchmarks/durability.sh --netns}:
 * {@code ./hedgerow root} on hosts hr-root1 and hr-root2, pid files {@code <run dir>/root-<n>.pid},
 * {@code n} from 1). Heal resumes a paused root (SIGCONT), or starts a killed one again with the
 * caller's restart command ({@code {root}} replaced by its number), which must return once the root
 * is ready ({@code run/start-root.sh N}). The leaves and ZooKeeper run on: a root restarts alone,
 * which is what separates this from {@link RootNemesis} (a whole {@code ./hedgerow local} process).
 * While a root is down its clients fail over to the other ({@link FailoverClient}).
 *
 * <p><b>Assumptions and guarantees.</b> Called from the loop's thread only. At most one root is
 * down at a time: a strike heals what the last one did first.
 */
public final class RootProcessNemesis implements Nemesis {
    private static final Duration EXIT_PATIENCE = Duration.ofSeconds(10);

    /** Signals a process: {@code KILL}, {@code STOP} or {@code CONT}. */
    interface Signaller {
        void signal(String signal, long pid) throws IOException;
    }

    /** Starts root {@code n} again and returns what it did, once it is ready. */
    interface Restarter {
        String restart(int root) throws IOException;
    }

    /** Waits for a killed process to be gone. */
    interface ExitWait {
        boolean awaitExit(long pid, Duration patience) throws IOException;
    }

    private final RunDirectory run;
    private final int roots;
    private final Signaller signaller;
    private final Restarter restarter;
    private final ExitWait exitWait;
    private int killed;
    private int paused;
    private long pausedPid;

    /**
     * @param roots          how many roots (numbered 1..roots)
     * @param restartCommand a shell command with {@code {root}} where the root's number goes
     */
    public static RootProcessNemesis withRestartCommand(RunDirectory run, int roots, String restartCommand) {
        if (restartCommand == null || !restartCommand.contains("{root}")) {
            throw new IllegalArgumentException("root restart command: '" + restartCommand + "' (expected: a shell command"
                    + " with {root} where the root's number goes)");
        }
        return new RootProcessNemesis(run, roots, LeafProcesses::signal,
                root -> LeafNemesis.runRestartCommand(restartCommand.replace("{root}", Integer.toString(root)), "root " + root,
                        run.logFile("root-restarts")),
                LeafProcesses::awaitExit);
    }

    RootProcessNemesis(RunDirectory run, int roots, Signaller signaller, Restarter restarter, ExitWait exitWait) {
        if (roots < 1) {
            throw new IllegalArgumentException("roots: " + roots + " (expected: >= 1)");
        }
        this.run = run;
        this.roots = roots;
        this.signaller = signaller;
        this.restarter = restarter;
        this.exitWait = exitWait;
    }

    /** The pid file of root {@code n} (from 1). */
    public static String pidName(int root) {
        return "root-" + root;
    }

    @Override
    public String name() {
        return "root";
    }

    @Override
    public String strike(Random random) throws IOException {
        String healed = heal();
        boolean kill = random.nextBoolean();
        int root = 1 + random.nextInt(roots);
        long pid = pid(root);
        signaller.signal(kill ? "KILL" : "STOP", pid);
        if (kill) {
            killed = root;
            if (!exitWait.awaitExit(pid, EXIT_PATIENCE)) {
                throw new IOException("root " + root + " (pid " + pid + ") still running " + EXIT_PATIENCE.toSeconds()
                        + "s after SIGKILL");
            }
        } else {
            paused = root;
            pausedPid = pid;
        }
        return (healed.isEmpty() ? "" : healed + ", then ") + (kill ? "kill" : "pause") + " root " + root + " (pid " + pid + ")";
    }

    @Override
    public String heal() throws IOException {
        if (paused != 0) {
            int root = paused;
            signaller.signal("CONT", pausedPid);
            paused = 0;
            return "resume root " + root;
        }
        if (killed != 0) {
            int root = killed;
            killed = 0; // a failed restart is reported once, not retried at every heal
            return restarter.restart(root);
        }
        return "";
    }

    private long pid(int root) throws IOException {
        Path file = run.pidFile(pidName(root));
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("no " + file + " (expected: the pid of root " + root + ", written by durability.sh --netns)");
        } catch (NumberFormatException e) {
            throw new IOException("unreadable pid file " + file);
        }
    }

    /** The root that is paused (1..), or 0. */
    int paused() {
        return paused;
    }

    /** The root that is killed and not yet started again (1..), or 0. */
    int killed() {
        return killed;
    }
}
