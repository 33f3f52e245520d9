package io.hedgerow.leaf.http;

import java.util.Objects;

/**
 * What the leaf's {@code /ready} says: whether it should be sent work, and why not.
 *
 * @param ready  200 when true, 503 otherwise
 * @param status a short word for the reason ({@code ready}, {@code unassigned}, {@code warming},
 *               {@code draining})
 * @param detail the reason in a sentence
 */
public record ProbeState(boolean ready, String status, String detail) {
    public ProbeState {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
    }
}
