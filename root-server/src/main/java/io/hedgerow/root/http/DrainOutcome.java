package io.hedgerow.root.http;

import io.hedgerow.common.time.Durations;
import java.time.Duration;

/**
 * What a stopping root's HTTP drain did ({@link ConnectionDrain}), for its log and its tests.
 *
 * @param searchesAtStop    admitted searches in flight when the stop began
 * @param searchesLeft      admitted searches still in flight when the drain ended (cut by the timeout)
 * @param refused           searches refused with 503 {@code shutting_down} during the drain
 * @param connectionsAtStop HTTP connections open when the stop began
 * @param closedIdle        connections the root closed between requests once its clients were quiet
 * @param closedAtDeadline  connections closed at the drain timeout, whatever they were doing
 * @param quietPeriod       how long no request had to arrive before idle connections were closed
 * @param tookNanos         from the listener's close to the end of the drain
 */
public record DrainOutcome(int searchesAtStop, int searchesLeft, long refused, int connectionsAtStop, int closedIdle,
        int closedAtDeadline, Duration quietPeriod, long tookNanos) {

    /** One line: what was drained, what was refused, how the connections ended, how long it took. */
    public String describe() {
        int closedAfterAnswer = Math.max(0, connectionsAtStop - closedIdle - closedAtDeadline);
        return "drained in " + tookNanos / 1_000_000 + " ms: " + searchesAtStop + " searches in flight at the stop, "
                + (searchesLeft == 0 ? "all answered" : searchesLeft + " cut unanswered at the drain timeout") + "; "
                + refused + " refused as shutting down; " + connectionsAtStop + " HTTP connections open: "
                + closedAfterAnswer + " closed after their last answer or by their client, " + closedIdle
                + " closed idle after a quiet period of " + Durations.format(quietPeriod) + ", " + closedAtDeadline
                + " cut at the drain timeout";
    }
}
