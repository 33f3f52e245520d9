package io.hedgerow.leaf.index;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A document as read from its source, before the index config is applied.
 *
 * @param id         the document's unique id; indexing a second document with the same id replaces
 *                   the first
 * @param fields     field name to value, in the order the source gave them (that order becomes the
 *                   index's {@code fields_seen}); never contains {@value IndexConfig#ID_FIELD}
 * @param lineNumber the 1-based line of the input it came from, for error messages; documents made
 *                   in code use their 1-based position
 */
public record SourceDocument(String id, Map<String, String> fields, long lineNumber) implements SourceEntry {

    public SourceDocument {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id: empty (expected: a non-empty string)");
        }
        if (lineNumber < 1) {
            throw new IllegalArgumentException("lineNumber: " + lineNumber + " (expected: >= 1)");
        }
        Map<String, String> copy = new LinkedHashMap<>(fields);
        copy.forEach((name, value) -> {
            Objects.requireNonNull(name, "field name");
            if (IndexConfig.ID_FIELD.equals(name)) {
                throw new IllegalArgumentException("fields: must not contain '" + IndexConfig.ID_FIELD
                        + "' (the id is the record's id component)");
            }
            if (value == null) {
                throw new IllegalArgumentException("fields: '" + name + "' is null (expected: a string)");
            }
        });
        fields = Collections.unmodifiableMap(copy);
    }
}
