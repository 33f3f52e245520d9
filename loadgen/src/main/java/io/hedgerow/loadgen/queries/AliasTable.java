package io.hedgerow.loadgen.queries;

import java.util.SplittableRandom;

/**
 * Picks an index {@code i} with probability {@code weights[i] / sum(weights)} in constant time,
 * by Vose's alias method: one uniform column, then one biased coin between the column and its
 * alias. Building it takes linear time; picking allocates nothing. Immutable; the random source
 * is the caller's.
 */
final class AliasTable {
    private final double[] probability;
    private final int[] alias;

    AliasTable(double[] weights) {
        int n = weights.length;
        if (n == 0) {
            throw new IllegalArgumentException("weights: none (expected: at least one)");
        }
        double total = 0;
        for (double weight : weights) {
            if (!Double.isFinite(weight) || weight < 0) {
                throw new IllegalArgumentException("weight: " + weight + " (expected: finite and >= 0)");
            }
            total += weight;
        }
        if (!(total > 0)) {
            throw new IllegalArgumentException("weights: all 0 (expected: at least one > 0)");
        }
        probability = new double[n];
        alias = new int[n];
        double[] scaled = new double[n];
        int[] small = new int[n];
        int[] large = new int[n];
        int smallCount = 0;
        int largeCount = 0;
        for (int i = 0; i < n; i++) {
            scaled[i] = weights[i] * n / total;
            if (scaled[i] < 1) {
                small[smallCount++] = i;
            } else {
                large[largeCount++] = i;
            }
        }
        while (smallCount > 0 && largeCount > 0) {
            int less = small[--smallCount];
            int more = large[--largeCount];
            probability[less] = scaled[less];
            alias[less] = more;
            scaled[more] = scaled[more] + scaled[less] - 1;
            if (scaled[more] < 1) {
                small[smallCount++] = more;
            } else {
                large[largeCount++] = more;
            }
        }
        // What is left is 1 up to rounding error.
        while (largeCount > 0) {
            int i = large[--largeCount];
            probability[i] = 1;
            alias[i] = i;
        }
        while (smallCount > 0) {
            int i = small[--smallCount];
            probability[i] = 1;
            alias[i] = i;
        }
    }

    int size() {
        return probability.length;
    }

    int pick(SplittableRandom random) {
        int column = random.nextInt(probability.length);
        return random.nextDouble() < probability[column] ? column : alias[column];
    }
}
