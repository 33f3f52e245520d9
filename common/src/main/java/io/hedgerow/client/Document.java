package io.hedgerow.client;

import java.util.Map;
import java.util.Objects;

/**
 * A document to write: its id and its fields, sent as JSON. A value is a string (or a number or
 * boolean where the index's config types the field so), or a list of them for a multi-valued
 * field, written as a JSON array and indexed as the offline build indexes one:
 * {@code new Document("d-1", Map.of("title", "heron", "tags", List.of("bird", "wader")))}.
 */
public record Document(String id, Map<String, ?> fields) {
    public Document {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id: empty (expected: a non-empty document id)");
        }
        fields = Map.copyOf(fields);
        if (fields.containsKey("id")) {
            throw new IllegalArgumentException("fields: has 'id' (expected: the id given apart, as Document.id)");
        }
    }
}
