package io.hedgerow.leaf.index;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * An index's routing key: documents with the same value of {@code field} live in the same
 * {@code partitions} consecutive partitions, so a query that names the value need ask only those.
 * Elasticsearch's {@code routing_partition_size} does the same: a document's partition is {@code
 * (hash(value) + hash(id) mod partitions) mod P} ({@link Partitioner#partitionOf(String, String)}),
 * so one key's documents spread over a few partitions rather than piling into one, and a hot key
 * still has as many partitions to replicate as {@code partitions} says.
 *
 * @param field      the document field that holds the key (a keyword field is the natural choice)
 * @param partitions how many partitions each key's documents spread over, at least 1
 */
public record Routing(@JsonProperty("field") String field, @JsonProperty("partitions") Integer partitions) {
    public Routing {
        Objects.requireNonNull(field, "field");
        if (field.isEmpty() || IndexConfig.ID_FIELD.equals(field)) {
            throw new IllegalArgumentException("field: '" + field + "' (expected: the name of a document field,"
                    + " not '" + IndexConfig.ID_FIELD + "')");
        }
        partitions = Objects.requireNonNullElse(partitions, 1);
        if (partitions < 1 || partitions > Partitioner.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: 1.." + Partitioner.MAX_PARTITIONS + ")");
        }
    }

    /**
     * Parses {@code FIELD} or {@code FIELD:N}, as the index command's {@code --routing} takes it.
     *
     * @throws IllegalArgumentException naming what was wrong
     */
    public static Routing parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            return new Routing(text, 1);
        }
        try {
            return new Routing(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("routing: '" + text + "' (expected: FIELD or FIELD:N, N a number of partitions)");
        }
    }

    @Override
    public String toString() {
        return field + ":" + partitions;
    }
}
