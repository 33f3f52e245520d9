package io.hedgerow.root.fault;

/** A fault injection that did not take effect; {@link #kind()} says why. */
public final class LeafFaultException extends RuntimeException {

    public enum Kind {
        /** The cluster has no leaf with that number. HTTP 404. */
        NO_SUCH_LEAF,
        /** The root has no ready connection to the leaf. HTTP 503. */
        UNAVAILABLE,
        /** The leaf refused: fault injection is disabled there, or a value is out of its range. HTTP 409. */
        REFUSED,
        /** The leaf did not answer in time (it may be paused). HTTP 504. */
        TIMED_OUT
    }

    private final Kind kind;

    public LeafFaultException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
