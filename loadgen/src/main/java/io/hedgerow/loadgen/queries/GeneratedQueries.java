package io.hedgerow.loadgen.queries;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A generated query set and how each category came out.
 *
 * @param set     the queries, with provenance comments, ready to write
 * @param results every category asked for, in order, including any that came out empty
 */
public record GeneratedQueries(QuerySet set, List<CategoryResult> results) {

    public GeneratedQueries {
        results = List.copyOf(results);
    }

    /** The categories that have queries, for a {@link QuerySet}. */
    static Map<String, List<String>> nonEmpty(List<CategoryResult> results) {
        Map<String, List<String>> categories = new LinkedHashMap<>();
        for (CategoryResult result : results) {
            if (!result.queries().isEmpty()) {
                categories.put(result.category(), result.queries());
            }
        }
        return categories;
    }
}
