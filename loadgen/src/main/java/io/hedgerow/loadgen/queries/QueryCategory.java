package io.hedgerow.loadgen.queries;

import java.util.Arrays;
import java.util.List;

/**
 * The categories the generator writes, after the task categories of Lucene's nightly benchmarks
 * (luceneutil's {@code HighTerm}, {@code AndHighMed}, {@code OrHighHigh}, {@code Prefix3}...).
 * Terms are put in frequency bands as luceneutil does (see {@link Vocabulary}); a query file may
 * also hold categories of its own, which a mix can name like these.
 */
public enum QueryCategory {
    HIGH_TERM("high_term", "one high-frequency term"),
    MEDIUM_TERM("medium_term", "one medium-frequency term"),
    LOW_TERM("low_term", "one low-frequency term"),
    AND_HIGH_HIGH("and_high_high", "+high +high, two high terms that occur together"),
    AND_HIGH_MED("and_high_med", "+high +medium, two terms that occur together"),
    OR_HIGH_HIGH("or_high_high", "high high, either term"),
    OR_HIGH_MED("or_high_med", "high medium, either term"),
    PHRASE("phrase", "\"two words\" adjacent in a document"),
    LARGE_OR("large_or", "20 to 50 medium terms, any of them (expensive)"),
    PREFIX("prefix", "abcd*, 4-letter prefix of a medium term (expensive)");

    private final String label;
    private final String description;

    QueryCategory(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** The name used in query files and mixes. */
    public String label() {
        return label;
    }

    public String description() {
        return description;
    }

    /** Every label, in the order the generator writes them. */
    public static List<String> labels() {
        return Arrays.stream(values()).map(QueryCategory::label).toList();
    }
}
