package io.hedgerow.loadgen.queries;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small query sets made in code. */
public final class TestQuerySets {
    private TestQuerySets() {
    }

    /** Two queries, {@code <category>1} and {@code <category>2}, in each category, in the order given. */
    public static QuerySet withCategories(String... categories) {
        Map<String, List<String>> queries = new LinkedHashMap<>();
        for (String category : categories) {
            queries.put(category, List.of(category + "1", category + "2"));
        }
        return new QuerySet(List.of(), queries);
    }
}
