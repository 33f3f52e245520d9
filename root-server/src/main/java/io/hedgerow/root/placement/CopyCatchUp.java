package io.hedgerow.root.placement;

/**
 * What the placement needs of the root's write path: the copies it adds kept in sync with the
 * partition's live writes, and word of when a new copy has caught up (only then does it serve).
 *
 * <p><b>Assumptions and guarantees.</b> Implementations are thread-safe and do not block: the
 * placement's thread calls them on every tick.
 */
public interface CopyCatchUp {
    /**
     * The partition's copies are now those on {@code leaves}, in order of preference (not retiring;
     * opening, catching up or serving): a new one is caught up, one gone is no longer written to.
     */
    void copies(int partition, int[] leaves);

    /** Whether {@code leaf}'s copy of {@code partition} holds every acknowledged write of it. */
    boolean caughtUp(int partition, int leaf);

    /** {@code leaf}'s copy of {@code partition} has just opened: catch it up now rather than within the second. */
    void catchUpSoon(int partition);

    /**
     * Whether {@code leaf}'s copy of {@code partition} is the partition's primary. The placement fills a
     * joined leaf with other copies: a primary whose copy moves hands over only at the next write, and a
     * copy placed back on its leaf before one came would wait for itself to catch up.
     */
    default boolean primaryAt(int partition, int leaf) {
        return false;
    }

    /** A root without a write path: every copy is caught up as soon as it is open. */
    CopyCatchUp NONE = new CopyCatchUp() {
        @Override
        public void copies(int partition, int[] leaves) {
        }

        @Override
        public boolean caughtUp(int partition, int leaf) {
            return true;
        }

        @Override
        public void catchUpSoon(int partition) {
        }
    };
}
