package io.hedgerow.root.search;

import java.util.Arrays;

/**
 * A few leaf numbers: the leaves a sub-request must not go to (those that failed it or hold a copy
 * of it), the leaves a query's canaries went to. Immutable; {@link #with} returns a new set.
 *
 * <p>It replaces a {@code long} bitmask, which held leaves 0 to 63 only: {@code 1L << 64} is
 * {@code 1L} in Java, so leaf 64 would have been taken for leaf 0 and a partition on both could
 * never be hedged or retried. The sets are tiny (a partition's replicas, a query's two canaries),
 * so a linear scan of a short array costs what the bit test did, for any number of leaves.
 */
public final class LeafSet {
    /** The set with no leaf. */
    public static final LeafSet EMPTY = new LeafSet(new int[0]);

    private final int[] leaves;

    private LeafSet(int[] leaves) {
        this.leaves = leaves;
    }

    /** The set of {@code leaves} (duplicates count once). */
    public static LeafSet of(int... leaves) {
        LeafSet set = EMPTY;
        for (int leaf : leaves) {
            set = set.with(leaf);
        }
        return set;
    }

    /** This set and {@code leaf}: this very set when it has it already. */
    public LeafSet with(int leaf) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf: " + leaf + " (expected: >= 0)");
        }
        if (contains(leaf)) {
            return this;
        }
        int[] more = Arrays.copyOf(leaves, leaves.length + 1);
        more[leaves.length] = leaf;
        return new LeafSet(more);
    }

    /** The leaves of both sets. */
    public LeafSet union(LeafSet other) {
        LeafSet set = this;
        for (int leaf : other.leaves) {
            set = set.with(leaf);
        }
        return set;
    }

    public boolean contains(int leaf) {
        for (int member : leaves) {
            if (member == leaf) {
                return true;
            }
        }
        return false;
    }

    /** Leaves in the set. */
    public int size() {
        return leaves.length;
    }

    public boolean isEmpty() {
        return leaves.length == 0;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof LeafSet set) || set.leaves.length != leaves.length) {
            return false;
        }
        for (int leaf : leaves) {
            if (!set.contains(leaf)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = 0;
        for (int leaf : leaves) {
            hash += Integer.hashCode(leaf); // order-independent, as equality is
        }
        return hash;
    }

    @Override
    public String toString() {
        int[] sorted = leaves.clone();
        Arrays.sort(sorted);
        return Arrays.toString(sorted);
    }
}
