package io.hedgerow.leaf.server;

import io.hedgerow.coordination.CoordinationException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Joins a leaf to the cluster's membership ({@link LeafMembership}) and keeps trying while
 * ZooKeeper cannot be reached: a leaf started (or restarted by its supervisor) while ZooKeeper is
 * down or cut off serves the roots that reach it and registers once ZooKeeper answers, instead of
 * exiting (the durability run across namespaces lost two leaves for good that way).
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe. The first attempt runs on the caller's thread;
 * later ones on a daemon thread of their own ("leaf-membership-join"), after a backoff doubling from
 * {@link #FIRST_RETRY} to {@link #LAST_RETRY}. {@link #close} stops the attempts and deregisters a
 * membership made. {@link #whenJoined} completes on the thread of the attempt that joined.
 */
final class MembershipJoin implements AutoCloseable {
    /** Starts a membership: connects and registers, or throws. */
    @FunctionalInterface
    interface Joiner {
        LeafMembership join() throws CoordinationException;
    }

    /** Told of each failed attempt: what failed and when the next one is. */
    @FunctionalInterface
    interface Failures {
        void failed(CoordinationException cause, Duration nextAttemptIn);
    }

    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LAST_RETRY = Duration.ofSeconds(30);

    private final Joiner joiner;
    private final Failures failures;
    private final Duration lastRetry;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leaf-membership-join");
        t.setDaemon(true);
        return t;
    });
    private final CompletableFuture<Void> whenJoined = new CompletableFuture<>();
    private LeafMembership membership;
    private boolean closed;

    private MembershipJoin(Joiner joiner, Failures failures, Duration lastRetry) {
        this.joiner = joiner;
        this.failures = failures;
        this.lastRetry = lastRetry;
    }

    /** Tries to join now, and again in the background until it has joined or is closed. */
    static MembershipJoin start(Joiner joiner, Failures failures) {
        return start(joiner, failures, FIRST_RETRY, LAST_RETRY);
    }

    /** As {@link #start(Joiner, Failures)}, the backoff doubling from {@code firstRetry} to {@code lastRetry}. */
    static MembershipJoin start(Joiner joiner, Failures failures, Duration firstRetry, Duration lastRetry) {
        MembershipJoin join = new MembershipJoin(joiner, failures, lastRetry);
        join.attempt(firstRetry);
        return join;
    }

    private void attempt(Duration backoff) {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        LeafMembership joined;
        try {
            joined = joiner.join();
        } catch (CoordinationException | RuntimeException e) {
            // Any failure is retried: an exception escaping a scheduled attempt would end the attempts
            // silently, and the leaf would never join (a registration timing out once threw so).
            failures.failed(e instanceof CoordinationException c ? c
                    : CoordinationException.failed("joining the cluster", e), backoff);
            Duration next = backoff.multipliedBy(2).compareTo(lastRetry) > 0 ? lastRetry : backoff.multipliedBy(2);
            thread.schedule(() -> attempt(next), backoff.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        boolean kept;
        synchronized (this) {
            kept = !closed;
            if (kept) {
                membership = joined;
                thread.shutdown();
            }
        }
        if (kept) {
            whenJoined.complete(null); // outside the lock: it may run what waits on it
        } else {
            joined.close(); // closed while it joined
        }
    }

    /** Whether the leaf has joined. */
    synchronized boolean joined() {
        return membership != null;
    }

    /** Completes when the leaf has joined; cancelled if the join is closed first. */
    CompletableFuture<Void> whenJoined() {
        return whenJoined;
    }

    @Override
    public void close() {
        LeafMembership made;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            made = membership;
        }
        thread.shutdownNow();
        whenJoined.cancel(false); // no effect once joined
        if (made != null) {
            made.close();
        }
    }
}
