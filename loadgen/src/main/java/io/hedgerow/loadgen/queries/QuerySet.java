package io.hedgerow.loadgen.queries;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * Queries in named categories, in the order they were generated or read, with the comment lines
 * that say where they came from. Immutable.
 *
 * @param comments   provenance, one line each, written after {@code #} at the top of a file
 * @param categories queries of each category, in Lucene classic query syntax; no category is empty
 */
public record QuerySet(List<String> comments, Map<String, List<String>> categories) {
    /** What a category name may look like: it is written in files and typed in mixes. */
    public static final Pattern CATEGORY = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public QuerySet {
        comments = List.copyOf(comments);
        for (String comment : comments) {
            if (comment.indexOf('\n') >= 0 || comment.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("comment: '" + comment + "' (expected: one line)");
            }
        }
        Map<String, List<String>> copy = new LinkedHashMap<>();
        categories.forEach((category, queries) -> {
            requireCategoryName(category);
            if (queries.isEmpty()) {
                throw new IllegalArgumentException("category '" + category + "': no queries (expected: at least one)");
            }
            for (String query : queries) {
                requireQuery(query);
            }
            copy.put(category, List.copyOf(queries));
        });
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("categories: none (expected: at least one category with queries)");
        }
        categories = Collections.unmodifiableMap(copy);
    }

    static void requireCategoryName(String category) {
        if (category == null || !CATEGORY.matcher(category).matches()) {
            throw new IllegalArgumentException("category: '" + category
                    + "' (expected: lower-case letters, digits and '_', starting with a letter, e.g. high_term)");
        }
    }

    static void requireQuery(String query) {
        if (query == null || query.isBlank()) {
            throw new IllegalArgumentException("query: empty (expected: a query in Lucene classic syntax)");
        }
        if (query.indexOf('\t') >= 0 || query.indexOf('\n') >= 0 || query.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("query: '" + query.replaceAll("\\s", " ")
                    + "' holds a tab or line break (expected: one line without tabs)");
        }
    }

    /** The category names, in file order. */
    public List<String> categoryNames() {
        return List.copyOf(categories.keySet());
    }

    public List<String> queries(String category) {
        List<String> queries = categories.get(category);
        if (queries == null) {
            throw new IllegalArgumentException("category: '" + category + "' is not in this query set (it has: "
                    + String.join(", ", categories.keySet()) + ")");
        }
        return queries;
    }

    /** Queries in all categories. */
    public int size() {
        return categories.values().stream().mapToInt(List::size).sum();
    }

    /** Every query, category after category in {@link #categoryNames()} order. */
    public List<String> allQueries() {
        List<String> all = new ArrayList<>(size());
        categories.values().forEach(all::addAll);
        return all;
    }

    /** {@code high_term 200, phrase 200, ...} */
    public String countsText() {
        StringJoiner text = new StringJoiner(", ");
        categories.forEach((category, queries) -> text.add(category + " " + queries.size()));
        return text.toString();
    }
}
