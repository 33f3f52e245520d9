package io.hedgerow.client;

import java.util.Map;
import java.util.Objects;

/**
 * A document to write: its id and its fields (strings, or numbers and lists where the index's
 * config types a field so), sent as JSON.
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
