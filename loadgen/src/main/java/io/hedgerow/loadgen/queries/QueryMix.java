package io.hedgerow.loadgen.queries;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * How often each category of queries is sent, as relative weights: {@code high_term=30,phrase=10}
 * sends three high-term queries for each phrase. Categories left out, or weighted 0, are not sent.
 * Immutable.
 *
 * <p>The {@linkplain #defaults() default mix} is mostly cheap queries with a few expensive ones,
 * roughly what a search box sees: single terms half the time (high and medium terms most), two-term
 * AND and OR queries and phrases most of the rest, and 2% each of the two expensive kinds
 * (large ORs and prefixes), enough to put their cost in the tail without letting them dominate the
 * mean.
 *
 * @param weights category to weight (finite, {@code >= 0}, at least one {@code > 0}), in the order given
 */
public record QueryMix(Map<String, Double> weights) {

    public QueryMix {
        Map<String, Double> copy = new LinkedHashMap<>();
        weights.forEach((category, weight) -> {
            QuerySet.requireCategoryName(category);
            if (weight == null || !Double.isFinite(weight) || weight < 0) {
                throw new IllegalArgumentException("mix: weight of '" + category + "' is " + weight
                        + " (expected: a number >= 0)");
            }
            copy.put(category, weight);
        });
        if (copy.values().stream().noneMatch(weight -> weight > 0)) {
            throw new IllegalArgumentException("mix: no weight above 0 in '" + render(copy)
                    + "' (expected: at least one category with a weight > 0)");
        }
        weights = Collections.unmodifiableMap(copy);
    }

    /**
     * The default mix, in percent: {@code high_term=20, medium_term=20, low_term=10,
     * and_high_high=9, and_high_med=9, or_high_high=9, or_high_med=9, phrase=10, large_or=2,
     * prefix=2}.
     */
    public static QueryMix defaults() {
        Map<String, Double> weights = new LinkedHashMap<>();
        weights.put(QueryCategory.HIGH_TERM.label(), 20.0);
        weights.put(QueryCategory.MEDIUM_TERM.label(), 20.0);
        weights.put(QueryCategory.LOW_TERM.label(), 10.0);
        weights.put(QueryCategory.AND_HIGH_HIGH.label(), 9.0);
        weights.put(QueryCategory.AND_HIGH_MED.label(), 9.0);
        weights.put(QueryCategory.OR_HIGH_HIGH.label(), 9.0);
        weights.put(QueryCategory.OR_HIGH_MED.label(), 9.0);
        weights.put(QueryCategory.PHRASE.label(), 10.0);
        weights.put(QueryCategory.LARGE_OR.label(), 2.0);
        weights.put(QueryCategory.PREFIX.label(), 2.0);
        return new QueryMix(weights);
    }

    /**
     * The mix to use when none is given: the default mix restricted to the set's categories, or
     * every category of the set equally when it has none of the default ones (a hand-written file).
     */
    public static QueryMix defaultFor(QuerySet set) {
        Map<String, Double> weights = new LinkedHashMap<>();
        defaults().weights().forEach((category, weight) -> {
            if (set.categories().containsKey(category)) {
                weights.put(category, weight);
            }
        });
        if (weights.isEmpty()) {
            set.categoryNames().forEach(category -> weights.put(category, 1.0));
        }
        return new QueryMix(weights);
    }

    /** Names of the preset mixes {@link #parse} accepts in place of weights. */
    public static final List<String> PRESETS = List.of("default", "cheap", "terms");

    /**
     * The default mix without its two expensive categories (large ORs and prefixes): the queries a
     * serving layer's throughput is usually quoted for.
     */
    public static QueryMix cheap() {
        Map<String, Double> weights = new LinkedHashMap<>(defaults().weights());
        weights.remove(QueryCategory.LARGE_OR.label());
        weights.remove(QueryCategory.PREFIX.label());
        return new QueryMix(weights);
    }

    /** Single terms only, high, medium and low frequency in the default mix's proportions. */
    public static QueryMix terms() {
        Map<String, Double> weights = new LinkedHashMap<>();
        weights.put(QueryCategory.HIGH_TERM.label(), 20.0);
        weights.put(QueryCategory.MEDIUM_TERM.label(), 20.0);
        weights.put(QueryCategory.LOW_TERM.label(), 10.0);
        return new QueryMix(weights);
    }

    /**
     * Parses a preset name ({@code default}, {@code cheap}, {@code terms}) or {@code category=weight}
     * pairs separated by commas, e.g. {@code high_term=30,phrase=10}.
     *
     * @throws IllegalArgumentException naming the bad pair and what was expected
     */
    public static QueryMix parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("mix: empty (expected: " + String.join(", ", PRESETS)
                    + ", or category=weight pairs separated by commas, e.g. high_term=30,phrase=10,large_or=2)");
        }
        switch (text.strip()) {
            case "default" -> {
                return defaults();
            }
            case "cheap" -> {
                return cheap();
            }
            case "terms" -> {
                return terms();
            }
            default -> {
                // category=weight pairs, below
            }
        }
        Map<String, Double> weights = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            String trimmed = pair.strip();
            int equals = trimmed.indexOf('=');
            if (equals < 0) {
                throw new IllegalArgumentException("mix: '" + trimmed + "' has no weight (expected: category=weight,"
                        + " e.g. high_term=30, or a preset: " + String.join(", ", PRESETS) + ")");
            }
            String category = trimmed.substring(0, equals).strip();
            String weightText = trimmed.substring(equals + 1).strip();
            if (!QuerySet.CATEGORY.matcher(category).matches()) {
                throw new IllegalArgumentException("mix: category '" + category + "' in '" + trimmed
                        + "' (expected: a category name such as high_term)");
            }
            double weight;
            try {
                weight = Double.parseDouble(weightText);
            } catch (NumberFormatException e) {
                weight = Double.NaN;
            }
            if (!Double.isFinite(weight) || weight < 0 || weightText.isEmpty()) {
                throw new IllegalArgumentException("mix: weight of '" + category + "' is '" + weightText
                        + "' (expected: a number >= 0)");
            }
            if (weights.put(category, weight) != null) {
                throw new IllegalArgumentException("mix: '" + category + "' is given twice (expected: each category once)");
            }
        }
        return new QueryMix(weights);
    }

    /**
     * Checks that the set has every category this mix sends.
     *
     * @throws IllegalArgumentException naming the first missing category and the set's categories
     */
    public void requireCategoriesIn(Collection<String> available) {
        for (Map.Entry<String, Double> entry : weights.entrySet()) {
            if (entry.getValue() > 0 && !available.contains(entry.getKey())) {
                throw new IllegalArgumentException("mix: unknown category '" + entry.getKey()
                        + "' (this query set has: " + String.join(", ", available) + ")");
            }
        }
    }

    /** This category's share of all queries sent, 0..1. */
    public double share(String category) {
        double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        return weights.getOrDefault(category, 0.0) / total;
    }

    @Override
    public String toString() {
        return render(weights);
    }

    private static String render(Map<String, Double> weights) {
        StringJoiner text = new StringJoiner(",");
        weights.forEach((category, weight) -> text.add(category + "=" + formatWeight(weight)));
        return text.toString();
    }

    private static String formatWeight(double weight) {
        return weight == Math.rint(weight) && Math.abs(weight) < 1e15
                ? Long.toString((long) weight) : String.format(Locale.ROOT, "%s", weight);
    }
}
