package io.hedgerow.loadgen.queries;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The routing values searches name, with their weights: {@code de} (every search), or {@code
 * de=8,fr=1,en=1} (each search draws one, with probability weight / sum). A phase that changes the
 * mix shifts the load from one key's partitions to another's. Immutable; the random source is the
 * caller's.
 */
public final class RoutingMix {
    private final List<String> values;
    private final AliasTable weights;

    private RoutingMix(List<String> values, double[] weights) {
        this.values = List.copyOf(values);
        this.weights = new AliasTable(weights);
    }

    /**
     * Parses {@code VALUE} or {@code VALUE=WEIGHT,...}.
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static RoutingMix parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("routing: empty (expected: a routing value such as de, or value=weight"
                    + " pairs separated by commas such as de=8,fr=1)");
        }
        List<String> values = new ArrayList<>();
        List<Double> weights = new ArrayList<>();
        for (String pair : text.split(",", -1)) {
            String trimmed = pair.strip();
            int equals = trimmed.lastIndexOf('=');
            String value = equals < 0 ? trimmed : trimmed.substring(0, equals).strip();
            double weight = 1;
            if (equals >= 0) {
                try {
                    weight = Double.parseDouble(trimmed.substring(equals + 1).strip());
                } catch (NumberFormatException e) {
                    weight = Double.NaN;
                }
            }
            if (value.isEmpty() || !Double.isFinite(weight) || weight < 0) {
                throw new IllegalArgumentException("routing: '" + trimmed + "' (expected: value or value=weight, a"
                        + " weight >= 0)");
            }
            if (values.contains(value)) {
                throw new IllegalArgumentException("routing: '" + value + "' given twice (expected: each value once)");
            }
            values.add(value);
            weights.add(weight);
        }
        return new RoutingMix(values, weights.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The values, in the order given; {@link #pick} returns an index into this list. */
    public List<String> values() {
        return values;
    }

    /** The index in {@link #values()} of the next search's routing value. */
    public int pick(SplittableRandom random) {
        return weights.pick(random);
    }
}
