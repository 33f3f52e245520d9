package io.hedgerow.coordination;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a registered leaf publishes in its membership znode ({@link LeafRegistration}): the address
 * roots reach it at, which incarnation of the leaf this is, and the service time it has spent on
 * each partition's answers since that incarnation started.
 *
 * <p>Why cumulative counters with an incarnation rather than rates: a rate needs a window, and the
 * window is the placement leader's setting ({@code PlacementSettings.loadWindow}), not the leaf's. A
 * reader takes differences between two readings of one incarnation; a reading of a new incarnation
 * (the leaf restarted, its counters began again at 0) is only a new baseline, so a restart never
 * looks like negative load or a burst.
 *
 * @param address      {@code host:port} for roots to connect to
 * @param incarnation  a random number drawn when the leaf's process registered first; 0: it
 *                     publishes no load (an entry of an older leaf, the address alone)
 * @param servedNanos  by partition: service time of the search answers the leaf wrote since then
 */
public record LeafEntry(String address, long incarnation, Map<Integer, Long> servedNanos) {
    public LeafEntry {
        Objects.requireNonNull(address, "address");
        servedNanos = Map.copyOf(servedNanos);
        for (Map.Entry<Integer, Long> e : servedNanos.entrySet()) {
            if (e.getKey() < 0 || e.getValue() < 0) {
                throw new IllegalArgumentException("servedNanos: " + e.getKey() + "=" + e.getValue()
                        + " (expected: partition >= 0, nanos >= 0)");
            }
        }
    }

    /** An entry with the address alone: no load published. */
    public static LeafEntry addressOnly(String address) {
        return new LeafEntry(address, 0, Map.of());
    }

    /** Whether this entry carries load counters (a leaf that publishes load). */
    public boolean publishesLoad() {
        return incarnation != 0;
    }

    /** The same leaf's entry with newer counters. */
    public LeafEntry withServedNanos(Map<Integer, Long> newServedNanos) {
        return new LeafEntry(address, incarnation, newServedNanos);
    }

    @Override
    public String toString() {
        return address + (incarnation == 0 ? "" : " (incarnation " + Long.toHexString(incarnation) + ", served "
                + new TreeMap<>(servedNanos) + ")");
    }
}
