package io.hedgerow.leaf.write;

/**
 * What a leaf's write-ahead logs ({@link WriteLog}) tell its metrics, so the logs stay free of any
 * metrics library: the leaf's observability implements it ({@code LeafWalMeters}), a test or a tool
 * passes {@link #NONE}. Called once per batch (an append, a sync), never per operation, and never on
 * the search path.
 *
 * <p><b>Assumptions and guarantees.</b> Implementations are thread-safe and cheap: every partition's
 * log calls them from its writer thread, under that partition's lock, while a write waits.
 */
public interface WalMeters {
    /** Records nothing. */
    WalMeters NONE = new WalMeters() {
    };

    /** A batch of {@code records} records, {@code bytes} long, was written to the end of a log. */
    default void appended(int records, long bytes) {
    }

    /** A log synced what was appended (its {@code fsync} and its checkpoint's), taking {@code nanos}. */
    default void synced(long nanos) {
    }

    /**
     * What the logs hold (synced) changed by {@code records} records and {@code bytes} bytes: up
     * after a sync or an opening, down after a trim or a close.
     */
    default void held(long records, long bytes) {
    }

    /** A trim dropped {@code records} records from a log. */
    default void trimmed(int records) {
    }

    /** Opening a log read back {@code records} synced records, for its copy to replay. */
    default void replayed(int records) {
    }

    /** An I/O error (a write, an fsync, a checkpoint, a trim) failed a log. */
    default void failed() {
    }
}
