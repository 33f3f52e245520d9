package io.hedgerow.api;

import java.util.Objects;

/**
 * One leaf as the replica choice saw it, as {@code "explain": true} lists it: why the search's
 * sub-requests went where they went. Taken when the result was built, from the connections of the
 * root's event loop that ran the search, so it is what the last choices of the search saw.
 *
 * @param leaf        the leaf, {@code host:port}
 * @param state       {@code in_rotation}, {@code probation} (chosen only when no replica in rotation
 *                    is left), {@code stalled} (silent while it owes answers: chosen only when no
 *                    other replica is left) or {@code not_ready} (down, draining, or connecting)
 * @param reason      why it is on probation; null otherwise
 * @param outstanding sub-requests sent to it and not answered, cancelled ones included
 * @param rank        C3's rank (lower is chosen first), null when the choice is not latency-aware or
 *                    nothing is known of the leaf yet
 * @param responseMillis EWMA of the round trip from it, null when nothing is known yet
 * @param serviceMillis  EWMA of the service time it reports, null when nothing is known yet
 * @param queue          EWMA of the queue length it reports, null when nothing is known yet
 */
public record LeafTrace(
        String leaf,
        String state,
        String reason,
        int outstanding,
        Double rank,
        Double responseMillis,
        Double serviceMillis,
        Double queue) {

    public LeafTrace {
        Objects.requireNonNull(leaf, "leaf");
        Objects.requireNonNull(state, "state");
    }
}
