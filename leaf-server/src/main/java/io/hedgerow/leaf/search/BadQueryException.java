package io.hedgerow.leaf.search;

/** A query that cannot be run here or anywhere: bad syntax, or refused by a cost guard. */
public final class BadQueryException extends Exception {
    public BadQueryException(String message, Throwable cause) {
        super(message, cause);
    }
}
