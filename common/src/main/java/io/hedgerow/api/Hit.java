package io.hedgerow.api;

import java.util.Map;

/**
 * One result.
 *
 * @param id        the document's id
 * @param score     its score in its partition (BM25 with that partition's statistics); NaN when
 *                  the search was sorted by fields only
 * @param partition the micro-partition it came from
 * @param fields    its returned stored fields, in index order
 * @param snippet   a passage of the snippet field with query terms in {@code <b>..</b>}; null when
 *                  snippets were not asked for or the index has no snippet field
 * @param sort      with a sorted search: its value for each sort key (Long for long, date and
 *                  boolean fields, Double, String for keywords, Float for the score; null when it has
 *                  none), then its id, which breaks ties: pass the last hit's as {@code search_after}.
 *                  Null for a search in the classic score order.
 * @param highlight with a {@link Highlight}: each highlighted field that matched, in the order asked,
 *                  with its fragments (HTML-escaped text, the caller's tags); null when none was asked
 */
public record Hit(String id, float score, int partition, Map<String, String> fields, String snippet,
        java.util.List<Object> sort, Map<String, java.util.List<String>> highlight) {

    /** A hit without highlighted fields (none asked). */
    public Hit(String id, float score, int partition, Map<String, String> fields, String snippet,
            java.util.List<Object> sort) {
        this(id, score, partition, fields, snippet, sort, null);
    }

    /** A hit of a search in the classic score order (no sort values). */
    public Hit(String id, float score, int partition, Map<String, String> fields, String snippet) {
        this(id, score, partition, fields, snippet, null);
    }
}
