package io.hedgerow.api;

import java.util.Map;

/**
 * One result.
 *
 * @param id        the document's id
 * @param score     its score in its partition (BM25 with that partition's statistics)
 * @param partition the micro-partition it came from
 * @param fields    its returned stored fields, in index order
 * @param snippet   a passage of the snippet field with query terms in {@code <b>..</b>}; null when
 *                  snippets were not asked for or the index has no snippet field
 */
public record Hit(String id, float score, int partition, Map<String, String> fields, String snippet) {
}
