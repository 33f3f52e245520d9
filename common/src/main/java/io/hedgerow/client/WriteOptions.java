package io.hedgerow.client;

/**
 * How one document write is made.
 *
 * @param ifVersion      write only when the document's version is this one (a 409 {@code conflict}
 *                       otherwise); 0 for no condition
 * @param waitForRefresh answer only once searches see the write ({@code refresh=wait_for})
 * @param routing        the document's routing value, which a {@code GET} or {@code DELETE} by id
 *                       needs in an index with a routing key; null otherwise
 */
public record WriteOptions(long ifVersion, boolean waitForRefresh, String routing) {
    public static final WriteOptions NONE = new WriteOptions(0, false, null);

    public WriteOptions {
        if (ifVersion < 0) {
            throw new IllegalArgumentException("ifVersion: " + ifVersion + " (expected: >= 1, or 0 for no condition)");
        }
        if (routing != null && routing.isEmpty()) {
            throw new IllegalArgumentException("routing: empty (expected: the document's routing value, or null)");
        }
    }

    /** Answered only once searches see the write. */
    public static WriteOptions refreshed() {
        return new WriteOptions(0, true, null);
    }

    public WriteOptions withIfVersion(long version) {
        return new WriteOptions(version, waitForRefresh, routing);
    }

    public WriteOptions withRouting(String value) {
        return new WriteOptions(ifVersion, waitForRefresh, value);
    }
}
