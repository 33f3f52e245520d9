package io.hedgerow.api;

/**
 * Why one partition is missing from a result, or why its hits lack their details.
 *
 * @param partition the partition
 * @param kind      what went wrong
 * @param leaf      the leaf that failed, or null when no leaf could be asked
 * @param detail    a human-readable explanation
 */
public record PartitionError(int partition, Kind kind, String leaf, String detail) {

    public enum Kind {
        /** No replica was up, or every replica tried failed to connect. */
        UNAVAILABLE("unavailable"),
        /** Every replica tried answered that its queue was full. */
        BUSY("busy"),
        /** The query's deadline passed before an answer came. */
        TIMED_OUT("timed_out"),
        /** The leaf failed while searching. */
        FAILED("failed"),
        /**
         * Still searching at the good-enough cutoff, when the partitions that had answered covered
         * enough of the index: the root cancelled it and answered without it.
         */
        CANCELLED("cancelled"),
        /**
         * The partition answered only in part: its leaf stopped at its deadline (or a cancel) and
         * returned the hits found so far, which are in the result; its total is a lower bound. It
         * does not count as answered in the coverage, so the result is tainted.
         */
        CUT_SHORT("cut_short"),
        /**
         * The partition answered, but the stored fields and snippets of its hits could not be
         * fetched in time; those hits come with id and score only. Does not reduce coverage.
         */
        FETCH_FAILED("fetch_failed");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
