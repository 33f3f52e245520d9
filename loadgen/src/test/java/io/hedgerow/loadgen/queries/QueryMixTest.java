package io.hedgerow.loadgen.queries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryMixTest {
    @Test
    void parsesWeightsInTheOrderGiven() {
        QueryMix mix = QueryMix.parse(" high_term=30, phrase = 10,large_or=2.5,prefix=0 ");

        assertThat(mix.weights()).containsExactly(Map.entry("high_term", 30.0), Map.entry("phrase", 10.0),
                Map.entry("large_or", 2.5), Map.entry("prefix", 0.0));
        assertThat(mix.share("high_term")).isEqualTo(30 / 42.5);
        assertThat(mix.share("prefix")).isZero();
        assertThat(mix).hasToString("high_term=30,phrase=10,large_or=2.5,prefix=0");
    }

    @Test
    void saysWhatIsWrongWithABadMix() {
        assertThatThrownBy(() -> QueryMix.parse("")).hasMessageStartingWith("mix: empty (expected: default, cheap, terms,"
                + " or category=weight pairs");
        assertThatThrownBy(() -> QueryMix.parse("high_term"))
                .hasMessage("mix: 'high_term' has no weight (expected: category=weight, e.g. high_term=30, or a preset:"
                        + " default, cheap, terms)");
        assertThatThrownBy(() -> QueryMix.parse("high_term=30,phrase=lots"))
                .hasMessage("mix: weight of 'phrase' is 'lots' (expected: a number >= 0)");
        assertThatThrownBy(() -> QueryMix.parse("phrase=-1"))
                .hasMessage("mix: weight of 'phrase' is '-1' (expected: a number >= 0)");
        assertThatThrownBy(() -> QueryMix.parse("phrase=NaN"))
                .hasMessage("mix: weight of 'phrase' is 'NaN' (expected: a number >= 0)");
        assertThatThrownBy(() -> QueryMix.parse("phrase="))
                .hasMessage("mix: weight of 'phrase' is '' (expected: a number >= 0)");
        assertThatThrownBy(() -> QueryMix.parse("phrase=1,,prefix=1"))
                .hasMessageStartingWith("mix: '' has no weight");
        assertThatThrownBy(() -> QueryMix.parse("Phrase=1"))
                .hasMessageStartingWith("mix: category 'Phrase' in 'Phrase=1' (expected: a category name");
        assertThatThrownBy(() -> QueryMix.parse("phrase=1,phrase=2"))
                .hasMessage("mix: 'phrase' is given twice (expected: each category once)");
        assertThatThrownBy(() -> QueryMix.parse("phrase=0,prefix=0"))
                .hasMessageStartingWith("mix: no weight above 0 in 'phrase=0,prefix=0'");
    }

    @Test
    void presetsNameTheDefaultMixWithoutExpensiveQueriesAndTermsOnly() {
        assertThat(QueryMix.parse("default")).isEqualTo(QueryMix.defaults());
        assertThat(QueryMix.parse(" cheap ").weights()).doesNotContainKeys("large_or", "prefix")
                .containsEntry("phrase", 10.0).hasSize(QueryMix.defaults().weights().size() - 2);
        assertThat(QueryMix.parse("terms").weights()).containsOnlyKeys("high_term", "medium_term", "low_term");
    }

    @Test
    void namesAnUnknownCategoryAndTheOnesTheSetHas() {
        QuerySet set = set("high_term", "phrase");

        assertThatThrownBy(() -> QuerySampler.of(set, QueryMix.parse("high_term=1,phrse=2"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mix: unknown category 'phrse' (this query set has: high_term, phrase)");
        // A category weighted 0 is not sent, so the set need not have it.
        QuerySampler.of(set, QueryMix.parse("high_term=1,prefix=0"), 1);
    }

    @Test
    void defaultMixIsMostlyCheapQueriesAndSumsToOneHundred() {
        QueryMix mix = QueryMix.defaults();

        assertThat(mix.weights().keySet()).containsExactlyElementsOf(QueryCategory.labels());
        assertThat(mix.weights().values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(100.0);
        assertThat(mix.share("large_or") + mix.share("prefix")).isEqualTo(0.04);
    }

    @Test
    void defaultForASetKeepsOnlyItsCategoriesOrWeighsAHandWrittenSetEvenly() {
        assertThat(QueryMix.defaultFor(set("phrase", "high_term", "mine")).weights())
                .containsExactly(Map.entry("high_term", 20.0), Map.entry("phrase", 10.0));
        assertThat(QueryMix.defaultFor(set("mine", "yours")).weights())
                .containsExactly(Map.entry("mine", 1.0), Map.entry("yours", 1.0));
    }

    private static QuerySet set(String... categories) {
        return TestQuerySets.withCategories(categories);
    }
}
