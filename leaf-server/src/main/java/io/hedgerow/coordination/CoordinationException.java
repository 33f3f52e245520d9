package io.hedgerow.coordination;

/**
 * ZooKeeper could not be asked or answered something unreadable: no connection within the
 * configured time, a session lost, a znode that does not parse. Checked, because a caller such as a
 * primary about to acknowledge a write must not go on as if the change it asked for were made: after
 * this exception it may or may not have been.
 */
public final class CoordinationException extends Exception {
    private static final long serialVersionUID = 1L;

    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }

    public CoordinationException(String message) {
        super(message);
    }

    /** {@code what} failed with {@code e} (a Curator call's exception); restores the interrupt flag. */
    public static CoordinationException failed(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new CoordinationException(what + " failed: " + e, e);
    }
}
