package io.hedgerow.api;

/** A whole search failed; {@link #kind()} says why, in terms a client can act on. */
public final class SearchException extends RuntimeException {

    public enum Kind {
        /** The query is malformed or refused; sending it again will not help. HTTP 400. */
        BAD_QUERY,
        /** No partition could answer: no replica up or all of them failed. HTTP 503. */
        UNAVAILABLE,
        /** The deadline passed before any partition answered. HTTP 504. */
        TIMED_OUT,
        /** The cluster is shutting down or not started. HTTP 503. */
        SHUTTING_DOWN,
        /**
         * The query's canary crashed its leaf, lost its connection or timed out: the query was sent
         * nowhere else and is now blocklisted (a timeout only the second time). HTTP 503.
         */
        DANGEROUS,
        /** The query is on the blocklist of queries of death; refused without touching a leaf. HTTP 503. */
        BLOCKLISTED
    }

    private final Kind kind;

    public SearchException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
