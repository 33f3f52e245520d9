package io.hedgerow.loadgen.scenario;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The leaves an injected fault acts on: one leaf by its number ({@code "leaf": 1}), or every leaf
 * of the cluster ({@code "leaf": "all"}), counted from the root's {@code GET /cluster} when the
 * run starts.
 *
 * @param number the leaf's number, or {@code -1} for every leaf
 */
public record Leaves(int number) {
    /** Every leaf of the cluster. */
    public static final Leaves ALL = new Leaves(-1);

    public Leaves {
        if (number < -1) {
            throw new IllegalArgumentException("leaf: " + number + " (expected: >= 0, or \"all\")");
        }
    }

    public static Leaves one(int leaf) {
        if (leaf < 0) {
            throw new IllegalArgumentException("leaf: " + leaf + " (expected: >= 0, or \"all\")");
        }
        return new Leaves(leaf);
    }

    /** From a scenario file: a leaf number, or the string {@code "all"}. */
    @JsonCreator
    static Leaves fromJson(JsonNode value) {
        if (value.isIntegralNumber() && value.canConvertToInt()) {
            return one(value.intValue());
        }
        if (value.isTextual() && value.textValue().equals("all")) {
            return ALL;
        }
        throw new IllegalArgumentException("leaf: " + value + " (expected: a leaf number, or \"all\")");
    }

    @JsonValue
    Object toJson() {
        return all() ? "all" : number;
    }

    public boolean all() {
        return number == -1;
    }

    /** The leaf numbers meant, given the numbers of the cluster's leaves. */
    public List<Integer> resolve(List<Integer> clusterLeaves) {
        return all() ? List.copyOf(clusterLeaves) : List.of(number);
    }

    @Override
    public String toString() {
        return all() ? "all" : Integer.toString(number);
    }
}
