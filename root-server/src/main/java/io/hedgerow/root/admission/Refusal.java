package io.hedgerow.root.admission;

import java.util.Locale;

/** Why admission control refused a search (503 {@code overloaded}), decided when it arrived. */
public enum Refusal {
    /** Over the limit, and the queue was full (or there is no queue). */
    QUEUE_FULL,
    /** Over the limit, and the queue delay expected would outlast the search's deadline. */
    DEADLINE,
    /** Over the limit, and the queue delay kept growing ({@link QueueDelayRule}). */
    STANDING_DELAY;

    /** {@code queue_full}, {@code deadline}, {@code standing_delay}: in metrics, JSON and error details. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
