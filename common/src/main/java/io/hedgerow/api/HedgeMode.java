package io.hedgerow.api;

import java.util.Locale;

/** How a query guards its partition sub-requests against a slow replica. */
public enum HedgeMode {
    /** One sub-request per partition; a retry only after a failure. */
    OFF,
    /**
     * A backup to another replica when the first sub-request is still unanswered after the hedge
     * delay (the root's {@code HedgeDelay}), within the root's {@code HedgeBudget}; the first answer wins and the
     * other copy is cancelled.
     */
    HEDGED,
    /**
     * Two copies on two replicas, the second a round trip or so later ({@code RoundTrip}), each
     * naming its twin, so the leaf that starts one first cancels the other while it is still
     * queued.
     */
    TIED;

    /** The name used on the command line and in requests: {@code off}, {@code hedged}, {@code tied}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code off}, {@code hedged} or {@code tied}, in any case.
     *
     * @throws IllegalArgumentException naming the text and the accepted values
     */
    public static HedgeMode parse(String text) {
        if (text != null) {
            String trimmed = text.trim();
            for (HedgeMode mode : values()) {
                if (mode.name().equalsIgnoreCase(trimmed)) {
                    return mode;
                }
            }
        }
        throw new IllegalArgumentException("hedge: " + (text == null ? "null" : "'" + text + "'")
                + " (expected: off, hedged or tied)");
    }
}
