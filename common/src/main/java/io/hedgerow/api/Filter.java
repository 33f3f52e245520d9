package io.hedgerow.api;

import java.util.List;
import java.util.Objects;

/**
 * A non-scoring filter on a search (Elasticsearch's names): it narrows the hits without changing
 * their scores. Values are given as text (a number or a boolean as its JSON text, a date as ISO 8601
 * or epoch millis) and read by the field's type at the leaves: exact terms on keyword fields, points
 * on long, double, date and boolean fields (ranges without term expansion).
 */
public sealed interface Filter permits Filter.Terms, Filter.Range, Filter.Exists, Filter.Bool {

    /** Most filters, nested ones included, in one request. */
    int MAX_CLAUSES = 1024;

    /** {@code term} (one value) or {@code terms} (any of them). */
    record Terms(String field, List<String> values) implements Filter {
        public Terms {
            requireField(field);
            values = List.copyOf(values);
            if (values.isEmpty() || values.size() > MAX_CLAUSES) {
                throw new IllegalArgumentException("terms: " + values.size() + " values for '" + field + "' (expected: 1.."
                        + MAX_CLAUSES + ")");
            }
        }
    }

    /** A range; null ends are open. At most one of gte/gt and one of lte/lt. */
    record Range(String field, String gte, String gt, String lte, String lt) implements Filter {
        public Range {
            requireField(field);
            if (gte != null && gt != null || lte != null && lt != null) {
                throw new IllegalArgumentException("range on '" + field + "': both gte and gt, or lte and lt"
                        + " (expected: at most one lower and one upper bound)");
            }
            if (gte == null && gt == null && lte == null && lt == null) {
                throw new IllegalArgumentException("range on '" + field + "': no bound (expected: gte, gt, lte or lt)");
            }
        }
    }

    /** The document has a value for the field. */
    record Exists(String field) implements Filter {
        public Exists {
            requireField(field);
        }
    }

    /** All of {@code must}, at least one of {@code should} (when not empty), none of {@code mustNot}. */
    record Bool(List<Filter> must, List<Filter> should, List<Filter> mustNot) implements Filter {
        public Bool {
            must = List.copyOf(must);
            should = List.copyOf(should);
            mustNot = List.copyOf(mustNot);
            if (must.isEmpty() && should.isEmpty() && mustNot.isEmpty()) {
                throw new IllegalArgumentException("bool: no clause (expected: must, should or must_not)");
            }
        }
    }

    static Filter term(String field, String value) {
        return new Terms(field, List.of(value));
    }

    static Filter terms(String field, List<String> values) {
        return new Terms(field, values);
    }

    static Filter exists(String field) {
        return new Exists(field);
    }

    /** Filters in this one, itself included. */
    default int clauses() {
        return switch (this) {
            case Terms terms -> terms.values().size();
            case Bool bool -> 1 + bool.must().stream().mapToInt(Filter::clauses).sum()
                    + bool.should().stream().mapToInt(Filter::clauses).sum()
                    + bool.mustNot().stream().mapToInt(Filter::clauses).sum();
            default -> 1;
        };
    }

    private static void requireField(String field) {
        Objects.requireNonNull(field, "field");
        if (field.isEmpty()) {
            throw new IllegalArgumentException("field: empty (expected: a field name)");
        }
    }
}
