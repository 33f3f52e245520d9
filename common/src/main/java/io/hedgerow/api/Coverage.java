package io.hedgerow.api;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * How much of the index a result covers, and how the answers it is made of fall short of what was
 * asked even where they cover it.
 *
 * @param partitionsTotal    partitions the query was meant for
 * @param partitionsAnswered partitions whose answer is in the result
 * @param docsFraction       fraction of the index's documents held by the answered partitions
 * @param degraded           why answers that count as covered are worse than asked (none: as
 *                           asked); in declaration order
 */
public record Coverage(int partitionsTotal, int partitionsAnswered, double docsFraction, Set<Degradation> degraded) {

    /**
     * Why a result that covers its partitions is still not what was asked. Unlike a missing
     * partition (which taints the result: its hits may not be the best), these leave the ranking of
     * the hits as it would be; they say what else is wrong with them.
     */
    public enum Degradation {
        /**
         * Stored fields or snippets were asked for, and for some hits they could not be fetched:
         * those hits have an id and a score only ({@link PartitionError.Kind#FETCH_FAILED} names them).
         */
        FETCH_FAILED("fetch_failed"),
        /**
         * Some partition was answered by a replica that missed acknowledged writes (out of sync),
         * as the last resort when no in-sync replica could answer: its hits may lack recent writes.
         */
        STALE_COPY("stale_copy");

        private final String label;

        Degradation(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public Coverage {
        if (partitionsAnswered < 0 || partitionsAnswered > partitionsTotal) {
            throw new IllegalArgumentException("partitionsAnswered: " + partitionsAnswered
                    + " (expected: 0.." + partitionsTotal + ")");
        }
        if (!(docsFraction >= 0 && docsFraction <= 1)) {
            throw new IllegalArgumentException("docsFraction: " + docsFraction + " (expected: 0..1)");
        }
        degraded = degraded.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(degraded));
    }

    /** Coverage with nothing degraded. */
    public Coverage(int partitionsTotal, int partitionsAnswered, double docsFraction) {
        this(partitionsTotal, partitionsAnswered, docsFraction, Set.of());
    }

    public boolean complete() {
        return partitionsAnswered == partitionsTotal;
    }

    /** This coverage, also degraded for {@code reason}. */
    public Coverage degradedBy(Degradation reason) {
        if (degraded.contains(reason)) {
            return this;
        }
        EnumSet<Degradation> more = EnumSet.of(reason);
        more.addAll(degraded);
        return new Coverage(partitionsTotal, partitionsAnswered, docsFraction, more);
    }
}
