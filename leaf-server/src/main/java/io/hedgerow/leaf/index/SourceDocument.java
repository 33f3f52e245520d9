package io.hedgerow.leaf.index;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A document as read from its source, before the index config is applied.
 *
 * @param id         the document's unique id; indexing a second document with the same id replaces
 *                   the first
 * @param fields     field name to value, in the order the source gave them (that order becomes the
 *                   index's {@code fields_seen}); never contains {@value IndexConfig#ID_FIELD}. A
 *                   value is a {@code String} (a JSON number or boolean as its JSON text, which the
 *                   field's type parses) or a {@code List<String>} of the values of a multi-valued
 *                   field (a JSON array)
 * @param lineNumber the 1-based line of the input it came from, for error messages; documents made
 *                   in code use their 1-based position
 */
public record SourceDocument(String id, Map<String, ?> fields, long lineNumber) implements SourceEntry {

    public SourceDocument {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("id: empty (expected: a non-empty string)");
        }
        if (lineNumber < 1) {
            throw new IllegalArgumentException("lineNumber: " + lineNumber + " (expected: >= 1)");
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        fields.forEach((name, value) -> {
            Objects.requireNonNull(name, "field name");
            if (IndexConfig.ID_FIELD.equals(name)) {
                throw new IllegalArgumentException("fields: must not contain '" + IndexConfig.ID_FIELD
                        + "' (the id is the record's id component)");
            }
            copy.put(name, switch (value) {
                case String s -> s;
                case List<?> list -> {
                    for (Object element : list) {
                        if (!(element instanceof String)) {
                            throw new IllegalArgumentException("fields: '" + name + "' holds " + element
                                    + " (expected: strings only in a multi-valued field)");
                        }
                    }
                    yield List.copyOf(list);
                }
                case null -> throw new IllegalArgumentException("fields: '" + name + "' is null (expected: a string)");
                default -> throw new IllegalArgumentException("fields: '" + name + "' is a "
                        + value.getClass().getSimpleName() + " (expected: a string or a list of strings)");
            });
        });
        fields = Collections.unmodifiableMap(copy);
    }

    /** The values of {@code field}: none, one, or a multi-valued field's. */
    public List<String> values(String field) {
        return valuesOf(fields.get(field));
    }

    /** The single value of {@code field}; null when absent or multi-valued. */
    public String value(String field) {
        return fields.get(field) instanceof String s ? s : null;
    }

    /** Whether some field holds several values (a JSON array). */
    public boolean multiValued() {
        return fields.values().stream().anyMatch(List.class::isInstance);
    }

    /** The fields as single strings, for a caller that takes no multi-valued field. */
    public Map<String, String> singleValued() {
        Map<String, String> single = new LinkedHashMap<>();
        fields.forEach((name, value) -> {
            if (!(value instanceof String s)) {
                throw new IllegalArgumentException("field '" + name + "' holds several values (expected: one here)");
            }
            single.put(name, s);
        });
        return single;
    }

    /** Characters of all the values, for progress and memory accounting. */
    public long chars() {
        long chars = id.length();
        for (Object value : fields.values()) {
            for (String v : valuesOf(value)) {
                chars += v.length();
            }
        }
        return chars;
    }

    @SuppressWarnings("unchecked")
    static List<String> valuesOf(Object value) {
        return switch (value) {
            case null -> List.of();
            case String s -> List.of(s);
            default -> (List<String>) value;
        };
    }
}
