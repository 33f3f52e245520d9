package io.hedgerow.root.write;

import io.hedgerow.common.policy.Backoff;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * How long {@link ReplicaCatchUp} waits before asking a replica's leaf again for a rebuild it refused
 * because the copy was fed since the decision (or for no reason it says, from an older leaf). Such a refusal
 * holds for that attempt only, but the next catch-up round comes within a second, and a copy another
 * root (or a primary) keeps feeding refuses again: each attempt costs a snapshot of the source's copy and
 * a pull of its files. So the n-th refusal in a row holds the replica back for
 * {@code min(max, initial * 2^(n-1))}; a rebuild that runs (or the replica leaving) forgets them.
 *
 * <p>Pure: times are the caller's, on its ticker. No jitter: one replica, one writer, nothing to spread.
 *
 * <p><b>Assumptions and guarantees.</b> Thread-safe (its methods are synchronized): refusals arrive on
 * event loops, the writer asks from its own.
 *
 * @param <K> what names a replica (its node)
 */
final class RefusedRebuildBackoff<K> {
    /** One second after the first refusal, doubling to a minute. */
    static final Backoff DEFAULT = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1));

    private record Hold(int refusals, long untilNanos) {
    }

    private final Backoff backoff;
    private final Map<K, Hold> holds = new HashMap<>();

    RefusedRebuildBackoff(Backoff backoff) {
        this.backoff = backoff;
    }

    /** The replica's leaf refused a rebuild over a fed copy at {@code nowNanos}. */
    synchronized void refused(K replica, long nowNanos) {
        Hold before = holds.get(replica);
        int refusals = before == null ? 1 : before.refusals() + 1;
        holds.put(replica, new Hold(refusals, nowNanos + backoff.ceilingNanos(refusals - 1)));
    }

    /** Whether no rebuild of the replica may be asked at {@code nowNanos} (it is backing off). */
    synchronized boolean holdsBack(K replica, long nowNanos) {
        Hold hold = holds.get(replica);
        return hold != null && nowNanos - hold.untilNanos() < 0;
    }

    /** Nanoseconds until a rebuild of the replica may be asked again (0: now). */
    synchronized long remainingNanos(K replica, long nowNanos) {
        Hold hold = holds.get(replica);
        return hold == null ? 0 : Math.max(0, hold.untilNanos() - nowNanos);
    }

    /** The replica was rebuilt (or is no longer one): its refusals are forgotten. */
    synchronized void cleared(K replica) {
        holds.remove(replica);
    }
}
