package io.hedgerow.loadgen.queries;

import java.util.Arrays;
import java.util.List;

/**
 * What the generator made of one category.
 *
 * @param category the category
 * @param wanted   queries asked for
 * @param queries  queries made, at most {@code wanted}
 * @param hits     documents each query matches in the whole index, parsed as the leaves parse it
 * @param note     anything the reader should know (too few terms, prefix expansions), or empty
 */
public record CategoryResult(String category, int wanted, List<String> queries, int[] hits, String note) {

    public CategoryResult {
        queries = List.copyOf(queries);
        hits = hits.clone();
        if (hits.length != queries.size()) {
            throw new IllegalArgumentException("hits: " + hits.length + " counts (expected: one per query, "
                    + queries.size() + ")");
        }
    }

    @Override
    public int[] hits() {
        return hits.clone();
    }

    /** The median hit count, or 0 with no queries. */
    public int medianHits() {
        if (hits.length == 0) {
            return 0;
        }
        int[] sorted = hits.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** Queries that match nothing. */
    public long withoutHits() {
        return Arrays.stream(hits).filter(count -> count == 0).count();
    }
}
