package io.hedgerow.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One result.
 *
 * <p>A multi-valued field (a JSON array in the document) keeps one value in {@link #fields()}, its
 * first in the order written, so code that reads a field as one string keeps working; all of its
 * values are in {@link #multiValues()}, and {@link #values(String)} reads either kind. Over HTTP such
 * a field is a JSON array of every value, and a field with one value a string, as {@code GET
 * /documents/{id}} writes them.
 *
 * @param id          the document's id
 * @param score       its score in its partition (BM25 with that partition's statistics); NaN when
 *                    the search was sorted by fields only
 * @param partition   the micro-partition it came from
 * @param fields      its returned stored fields, in index order: each field's value, the first one
 *                    for a field that holds several
 * @param snippet     a passage of the snippet field with query terms in {@code <b>..</b>}; null when
 *                    snippets were not asked for or the index has no snippet field
 * @param sort        with a sorted search: its value for each sort key (Long for long, date and
 *                    boolean fields, Double, String for keywords, Float for the score; null when it
 *                    has none), then its id, which breaks ties: pass the last hit's as {@code
 *                    search_after}. Null for a search in the classic score order.
 * @param highlight   with a {@link Highlight}: each highlighted field that matched, in the order
 *                    asked, with its fragments (HTML-escaped text, the caller's tags); null when none
 *                    was asked
 * @param multiValues the returned fields that hold more than one value, each with every value in the
 *                    order written (the first is the one in {@code fields}); empty when none does
 */
public record Hit(String id, float score, int partition, Map<String, String> fields, String snippet,
        List<Object> sort, Map<String, List<String>> highlight, Map<String, List<String>> multiValues) {

    public Hit {
        if (multiValues == null || multiValues.isEmpty()) {
            multiValues = Map.of();
        } else {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            multiValues.forEach((name, values) -> {
                if (values.size() < 2) {
                    throw new IllegalArgumentException("multiValues: '" + name + "' holds " + values.size()
                            + " value(s) (expected: >= 2; a field with one value is in fields only)");
                }
                copy.put(name, List.copyOf(values));
            });
            multiValues = Collections.unmodifiableMap(copy);
        }
    }

    /** A hit whose fields hold one value each. */
    public Hit(String id, float score, int partition, Map<String, String> fields, String snippet, List<Object> sort,
            Map<String, List<String>> highlight) {
        this(id, score, partition, fields, snippet, sort, highlight, Map.of());
    }

    /** A hit without highlighted fields (none asked). */
    public Hit(String id, float score, int partition, Map<String, String> fields, String snippet, List<Object> sort) {
        this(id, score, partition, fields, snippet, sort, null);
    }

    /** A hit of a search in the classic score order (no sort values). */
    public Hit(String id, float score, int partition, Map<String, String> fields, String snippet) {
        this(id, score, partition, fields, snippet, null);
    }

    /** The returned values of {@code field}: none when it was not returned, one, or a multi-valued field's every value. */
    public List<String> values(String field) {
        List<String> several = multiValues.get(field);
        if (several != null) {
            return several;
        }
        String one = fields.get(field);
        return one == null ? List.of() : List.of(one);
    }
}
