package io.hedgerow.root.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.Filter;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.Highlight;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheKeyTest {

    @Test
    void ignoresHedgingTimeoutAndExplainAndSpelling() {
        CacheKey plain = Fingerprints.key(SearchRequest.of("european parliament"));
        CacheKey other = Fingerprints.key(SearchRequest.builder(" european   parliament ")
                .hedge(HedgeMode.TIED).timeoutMillis(50).explain(true).build());
        assertThat(other).isEqualTo(plain);
        assertThat(Fingerprints.key(SearchRequest.builder("european parliament").hedgeAfterMillis(5).build())).isEqualTo(plain);
    }

    @Test
    void distinguishesWhatChangesAResult() {
        CacheKey plain = Fingerprints.key(SearchRequest.of("european parliament"));
        SearchRequest.Builder base = SearchRequest.builder("european parliament");
        assertThat(Fingerprints.key(SearchRequest.of("european parliament", 20))).isNotEqualTo(plain);
        assertThat(Fingerprints.key(base.snippets(false).build())).isNotEqualTo(plain);
        assertThat(Fingerprints.key(SearchRequest.builder("european parliament").storedFields(false).build())).isNotEqualTo(plain);
        assertThat(Fingerprints.key(SearchRequest.builder("european parliament").totalHitsThreshold(10).build())).isNotEqualTo(plain);
        assertThat(Fingerprints.key(SearchRequest.of("european parliaments"))).isNotEqualTo(plain);
        assertThat(Fingerprints.key(SearchRequest.builder("european parliament").routing("de").build()))
                .as("another routing value searches other partitions").isNotEqualTo(plain)
                .isNotEqualTo(Fingerprints.key(SearchRequest.builder("european parliament").routing("fr").build()));
    }

    @Test
    void distinguishesSearchesThatDifferOnlyInTheirFieldListOrHighlight() {
        CacheKey every = Fingerprints.key(SearchRequest.of("european parliament"));
        CacheKey title = Fingerprints.key(SearchRequest.builder("european parliament").fields(List.of("title")).build());
        CacheKey date = Fingerprints.key(SearchRequest.builder("european parliament").fields(List.of("date")).build());
        CacheKey none = Fingerprints.key(SearchRequest.builder("european parliament").fields(List.of()).build());
        assertThat(List.of(every, title, date, none)).doesNotHaveDuplicates();
        assertThat(Fingerprints.key(SearchRequest.builder("european parliament").fields(List.of("title", "title")).build()))
                .isEqualTo(title);
        CacheKey body = Fingerprints.key(SearchRequest.builder("european parliament").highlight(Highlight.of("body")).build());
        CacheKey bodyMarked = Fingerprints.key(SearchRequest.builder("european parliament")
                .highlight(new Highlight(Map.of("body", Highlight.Field.DEFAULT), "<mark>", "</mark>")).build());
        CacheKey whole = Fingerprints.key(SearchRequest.builder("european parliament")
                .highlight(new Highlight(Map.of("body", new Highlight.Field(0, 100)), null, null)).build());
        assertThat(List.of(every, body, bodyMarked, whole)).doesNotHaveDuplicates();
        // The default request's key is the classic one: no shape to build or hash.
        assertThat(every.shape()).isNull();
    }

    @Test
    void distinguishesSearchesThatDifferOnlyInTheirAggregations() {
        SearchRequest plain = SearchRequest.of("european parliament");
        SearchRequest byLang = SearchRequest.builder("european parliament")
                .aggs(Map.of("a", Aggregation.Terms.of("lang", 10))).build();
        SearchRequest byDate = SearchRequest.builder("european parliament")
                .aggs(Map.of("a", Aggregation.DateHistogram.calendar("date", Aggregation.CalendarUnit.MONTH))).build();
        SearchRequest renamed = SearchRequest.builder("european parliament")
                .aggs(Map.of("b", Aggregation.Terms.of("lang", 10))).build();

        assertThat(Fingerprints.key(byLang)).isNotEqualTo(Fingerprints.key(plain))
                .isNotEqualTo(Fingerprints.key(byDate)).isNotEqualTo(Fingerprints.key(renamed))
                .isEqualTo(Fingerprints.key(SearchRequest.builder("european parliament")
                        .aggs(Map.of("a", Aggregation.Terms.of("lang", 10))).build()));
        assertThat(Fingerprints.key(plain).shape()).as("no aggs: the classic key").isNull();
    }

    /** Found by ClusterSearchEquivalenceTest (seed -2191106004987769376): both filters shared one cached result. */
    @Test
    void distinguishesFiltersAndSearchAfterValuesThatPrintAlike() {
        SearchRequest.Builder base = SearchRequest.builder("meadow").sort(List.of(SortField.asc("cat")));
        assertThat(Fingerprints.key(base.filter(Filter.terms("cat", List.of("alpha", "epsilon"))).build()))
                .isNotEqualTo(Fingerprints.key(base.filter(Filter.term("cat", "alpha, epsilon")).build()));
        assertThat(Fingerprints.key(base.filter(new Filter.Range("qty", "1", null, null, null)).build()))
                .isNotEqualTo(Fingerprints.key(base.filter(new Filter.Range("qty", null, "1", null, null)).build()));
        base.filter(null);
        assertThat(Fingerprints.key(base.searchAfter(java.util.Arrays.asList(null, "d1")).build()))
                .as("a missing value is not the keyword \"null\"")
                .isNotEqualTo(Fingerprints.key(base.searchAfter(List.of("null", "d1")).build()));
        assertThat(Fingerprints.key(base.searchAfter(List.of("a", "b, c")).build()))
                .isEqualTo(Fingerprints.key(base.searchAfter(List.of("a", "b, c")).build()))
                .isNotEqualTo(Fingerprints.key(base.searchAfter(List.of("a, b", "c")).build()));
    }

    @Test
    void isTheFingerprintAndTheResultShapingSettings() {
        SearchRequest request = SearchRequest.of("b AND a", 5);
        QueryFingerprint fingerprint = Fingerprints.of(request.query());
        assertThat(CacheKey.of(fingerprint, request)).isEqualTo(new CacheKey(Fingerprints.of("a && b"), 5, true, true,
                SearchRequest.DEFAULT_TOTAL_HITS_THRESHOLD, null));
        assertThatThrownBy(() -> new CacheKey(fingerprint, -1, true, true, 1, null)).hasMessage("k: -1 (expected: >= 0)");
    }
}
