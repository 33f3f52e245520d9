package io.hedgerow.root.local;

import io.hedgerow.common.time.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;

/**
 * Restarts every leaf of a local cluster one at a time, so that every partition keeps a serving
 * replica throughout: for each leaf in turn, wait until every other leaf serves, stop it gracefully
 * (SIGTERM: it drains, answering what it holds and refusing new work as draining, which the root
 * retries on another replica), start it again on its port, and wait until the root has it ready
 * again (every connection's assignment acknowledged: all its partitions open and warmed) and out of
 * its slow start (its latency down to its peers') before the next, so that only one leaf at a time is
 * cold.
 *
 * <p><b>Assumptions and guarantees.</b> Runs on the caller's thread and blocks for the whole
 * restart. With one replica per partition a restart leaves partitions unserved while their leaf
 * restarts; with two or more, none.
 */
final class RollingRestart {
    /** What a rolling restart needs of the cluster. */
    interface Leaves {
        int count();

        /** Stops leaf {@code leaf} with SIGTERM and waits for it to exit; its exit is no death to the supervisor. */
        long stop(int leaf) throws InterruptedException;

        /** Starts leaf {@code leaf} again on its port and waits until it listens; returns its new pid. */
        long start(int leaf) throws IOException, InterruptedException;
    }

    private final Leaves leaves;
    private final IntPredicate ready;
    private final Duration readyTimeout;

    /**
     * @param ready        whether the root has leaf n ready (every connection's assignment acknowledged, out
     *                     of slow start)
     * @param readyTimeout how long to wait for a leaf to be ready before giving up the restart
     */
    RollingRestart(Leaves leaves, IntPredicate ready, Duration readyTimeout) {
        this.leaves = leaves;
        this.ready = ready;
        this.readyTimeout = readyTimeout;
    }

    /**
     * Restarts every leaf in turn.
     *
     * @return one line per leaf and the total, for the admin route's answer
     * @throws IOException when a leaf does not start or does not become ready in time (the leaves
     *                     after it are left as they are)
     */
    String run() throws IOException, InterruptedException {
        long started = System.nanoTime();
        List<String> steps = new ArrayList<>();
        for (int leaf = 0; leaf < leaves.count(); leaf++) {
            for (int other = 0; other < leaves.count(); other++) {
                awaitReady(other, "before leaf " + leaf + " is stopped");
            }
            long stepStarted = System.nanoTime();
            long oldPid = leaves.stop(leaf);
            long stoppedNanos = System.nanoTime() - stepStarted;
            long newPid = leaves.start(leaf);
            awaitReady(leaf, "after its restart");
            steps.add(String.format(Locale.ROOT, "leaf %d: pid %d -> %d, stopped in %s, ready and warm again after %s", leaf, oldPid,
                    newPid, Durations.format(Duration.ofMillis(stoppedNanos / 1_000_000)),
                    Durations.format(Duration.ofMillis((System.nanoTime() - stepStarted) / 1_000_000))));
        }
        return String.format(Locale.ROOT, "restarted %d leaves one at a time in %s: %s", leaves.count(),
                Durations.format(Duration.ofMillis((System.nanoTime() - started) / 1_000_000)), String.join("; ", steps));
    }

    private void awaitReady(int leaf, String when) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + readyTimeout.toNanos();
        while (!ready.test(leaf)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("rolling restart stopped: leaf " + leaf + " was not ready " + when + " within "
                        + Durations.format(readyTimeout) + " (see /cluster and its log)");
            }
            Thread.sleep(20);
        }
    }
}
