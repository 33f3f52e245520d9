package io.hedgerow.api;

import java.util.Locale;

/**
 * The service class a query asks for at the leaves. Interactive queries are served first; batch
 * queries use what capacity is left, behind interactive work and its backups, but still progress.
 * (Backups and shadow traffic have classes of their own, which the root assigns.)
 */
public enum QueryPriority {
    /** A user is waiting: the default. */
    INTERACTIVE,
    /** Bulk work that may wait for interactive queries. */
    BATCH;

    /** The name used in requests: {@code interactive}, {@code batch}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code interactive} or {@code batch}, in any case.
     *
     * @throws IllegalArgumentException naming the text and the accepted values
     */
    public static QueryPriority parse(String text) {
        if (text != null) {
            String trimmed = text.trim();
            for (QueryPriority priority : values()) {
                if (priority.name().equalsIgnoreCase(trimmed)) {
                    return priority;
                }
            }
        }
        throw new IllegalArgumentException("priority: " + (text == null ? "null" : "'" + text + "'")
                + " (expected: interactive or batch)");
    }
}
