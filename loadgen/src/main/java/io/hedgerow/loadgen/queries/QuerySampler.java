package io.hedgerow.loadgen.queries;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Picks queries of a {@link QuerySet} as a {@link QueryMix} says: a category by its weight, then
 * one of its queries uniformly. A pick is an index into {@link #queries()} (category after category,
 * as in the set), so a caller can keep anything it derives from a query, such as a request path, in
 * an array and look it up without building strings. Picks take constant time and allocate nothing:
 * the load generator draws one per request on its event loop.
 *
 * <p><b>Assumptions and guarantees.</b> Not thread-safe: one sampler per thread (the random state
 * is not shared). The same set, mix and seed give the same sequence of picks.
 */
public final class QuerySampler {
    private final List<String> queries;
    private final AliasTable categories;
    private final int[] firstQuery;
    private final int[] queryCount;
    private final SplittableRandom random;

    private QuerySampler(List<String> queries, AliasTable categories, int[] firstQuery, int[] queryCount, long seed) {
        this.queries = queries;
        this.categories = categories;
        this.firstQuery = firstQuery;
        this.queryCount = queryCount;
        this.random = new SplittableRandom(seed);
    }

    /**
     * A sampler over {@code set} weighted by {@code mix}.
     *
     * @throws IllegalArgumentException when the mix names a category the set does not have
     */
    public static QuerySampler of(QuerySet set, QueryMix mix, long seed) {
        mix.requireCategoriesIn(set.categoryNames());
        List<String> queries = set.allQueries();
        // Only categories that are sent get a column: a zero weight then can never be picked,
        // whatever the rounding in the alias table.
        List<Double> weights = new ArrayList<>();
        List<Integer> firsts = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        int next = 0;
        for (Map.Entry<String, List<String>> category : set.categories().entrySet()) {
            double weight = mix.weights().getOrDefault(category.getKey(), 0.0);
            if (weight > 0) {
                weights.add(weight);
                firsts.add(next);
                counts.add(category.getValue().size());
            }
            next += category.getValue().size();
        }
        double[] weightArray = weights.stream().mapToDouble(Double::doubleValue).toArray();
        int[] firstQuery = firsts.stream().mapToInt(Integer::intValue).toArray();
        int[] queryCount = counts.stream().mapToInt(Integer::intValue).toArray();
        return new QuerySampler(queries, new AliasTable(weightArray), firstQuery, queryCount, seed);
    }

    /** Every query of the set; {@link #next()} returns an index into this list. */
    public List<String> queries() {
        return queries;
    }

    /** The index in {@link #queries()} of the next query to send. */
    public int next() {
        int category = categories.pick(random);
        return firstQuery[category] + random.nextInt(queryCount[category]);
    }

    /** The category of each query of {@link #queries()}, for reports and tests. */
    public static List<String> categoryOfEach(QuerySet set) {
        List<String> categories = new ArrayList<>(set.size());
        set.categories().forEach((category, queries) -> queries.forEach(query -> categories.add(category)));
        return categories;
    }
}
