package io.hedgerow.api;

import java.util.Objects;

/**
 * One sub-request sent for a query, as {@code "explain": true} lists it.
 *
 * @param partition   the partition searched, or -1 for a fetch that spans partitions
 * @param leaf        the leaf it went to, {@code host:port}
 * @param kind        why it was sent
 * @param sentMillis  when it was sent, in ms since the query started
 * @param answeredMillis when its answer came, in ms since the query started; null if none came
 *                    while the query was being served
 * @param status      the leaf's answer ({@code ok}, {@code busy}, {@code cancelled}...), or
 *                    {@code connection_lost}; null if none came
 * @param used        its answer went into the result
 * @param cancelled   the root cancelled it (another copy answered first, or the query ended)
 */
public record SubRequestTrace(
        int partition,
        String leaf,
        Kind kind,
        double sentMillis,
        Double answeredMillis,
        String status,
        boolean used,
        boolean cancelled) {

    public SubRequestTrace {
        Objects.requireNonNull(leaf, "leaf");
        Objects.requireNonNull(kind, "kind");
    }

    /** Why a sub-request was sent. */
    public enum Kind {
        /**
         * A canary: the first copy for its partition, sent before the wide fan-out to see whether
         * the query is safe (the first, or a second opinion on another leaf).
         */
        CANARY,
        /** The first copy for its partition. */
        PRIMARY,
        /** Another replica, after the first failed. */
        RETRY,
        /** Another replica, after the hedge delay passed without an answer. */
        BACKUP,
        /** The second copy of a tied request. */
        TWIN,
        /**
         * A sampled copy to a leaf on latency-induced probation, at the leaves' SHADOW class, so the
         * root keeps measuring it; its answer is dropped. Not in a search's trace.
         */
        SHADOW,
        /** Stored fields and snippets of merged hits. */
        FETCH,
        /** A fetch on other replicas, after the fetch phase's hedge delay passed without an answer. */
        FETCH_BACKUP,
        /** A fetch on other replicas, after the first failed. */
        FETCH_RETRY;

        public String label() {
            return name().toLowerCase();
        }
    }
}
