package io.hedgerow.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Elasticsearch's {@code highlight}: fragments of chosen text fields with the query's matches between
 * the caller's tags. The text between the tags is HTML-escaped ({@code & < > "}); the tags are the
 * caller's, as given.
 *
 * @param fields  the fields to highlight, in the order asked, each with its settings; 1 to
 *                {@value #MAX_FIELDS}
 * @param preTag  put before each match, at most {@value #MAX_TAG_CHARS} characters
 * @param postTag put after each match, at most {@value #MAX_TAG_CHARS} characters
 */
public record Highlight(Map<String, Field> fields, String preTag, String postTag) {
    public static final int MAX_FIELDS = 10;
    public static final int MAX_TAG_CHARS = 64;
    public static final String DEFAULT_PRE_TAG = "<em>";
    public static final String DEFAULT_POST_TAG = "</em>";

    public Highlight {
        Objects.requireNonNull(fields, "fields");
        if (fields.isEmpty() || fields.size() > MAX_FIELDS) {
            throw new IllegalArgumentException("highlight.fields: " + fields.size() + " fields (expected: 1.." + MAX_FIELDS
                    + ")");
        }
        fields.forEach((name, field) -> {
            if (name == null || name.isBlank() || field == null) {
                throw new IllegalArgumentException("highlight.fields: a blank name or a null field (expected: field"
                        + " names with their settings, e.g. {\"body\": {}})");
            }
        });
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        preTag = checkedTag("pre_tags", preTag == null ? DEFAULT_PRE_TAG : preTag);
        postTag = checkedTag("post_tags", postTag == null ? DEFAULT_POST_TAG : postTag);
    }

    /** These fields with their default settings, between {@code <em>} and {@code </em>}. */
    public static Highlight of(String... fields) {
        Map<String, Field> map = new LinkedHashMap<>();
        for (String field : fields) {
            map.put(field, Field.DEFAULT);
        }
        return new Highlight(map, null, null);
    }

    private static String checkedTag(String name, String tag) {
        if (tag.length() > MAX_TAG_CHARS) {
            throw new IllegalArgumentException("highlight." + name + ": " + tag.length() + " characters (expected: <= "
                    + MAX_TAG_CHARS + ")");
        }
        return tag;
    }

    /**
     * One field's settings.
     *
     * @param numberOfFragments fragments returned at most, best first in text order; 0 returns the
     *                          whole field (with its matches tagged) as one fragment
     * @param fragmentSize      a fragment's length goal in characters (fragments end at a sentence
     *                          end near it, so approximate); ignored when {@code numberOfFragments} is 0
     */
    public record Field(int numberOfFragments, int fragmentSize) {
        public static final int MAX_FRAGMENTS = 50;
        public static final int MAX_FRAGMENT_SIZE = 10_000;
        /** Elasticsearch's defaults: 5 fragments of about 100 characters. */
        public static final Field DEFAULT = new Field(5, 100);

        public Field {
            if (numberOfFragments < 0 || numberOfFragments > MAX_FRAGMENTS) {
                throw new IllegalArgumentException("number_of_fragments: " + numberOfFragments + " (expected: 0.."
                        + MAX_FRAGMENTS + ", 0 for the whole field)");
            }
            if (fragmentSize < 1 || fragmentSize > MAX_FRAGMENT_SIZE) {
                throw new IllegalArgumentException("fragment_size: " + fragmentSize + " (expected: 1.."
                        + MAX_FRAGMENT_SIZE + ")");
            }
        }
    }
}
