package io.hedgerow.api;

import java.util.Objects;

/**
 * One key of a search's sort: a field with doc values (keyword, long, double, date, boolean) or
 * {@value #SCORE}, ascending or descending. Documents without a value sort last either way; ties
 * after every key are broken by the id, ascending.
 */
public record SortField(String field, boolean descending) {
    public static final String SCORE = "_score";

    public SortField {
        Objects.requireNonNull(field, "field");
        if (field.isEmpty()) {
            throw new IllegalArgumentException("sort: empty field name (expected: a field or _score)");
        }
    }

    public static SortField asc(String field) {
        return new SortField(field, false);
    }

    public static SortField desc(String field) {
        return new SortField(field, true);
    }
}
