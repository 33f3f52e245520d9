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

    /**
     * Each pair printed alike with the records' own toString (names, fields, range keys, tags and
     * field lists bare), so the second request of a pair was served the first one's cached result.
     */
    @Test
    void distinguishesAggregationsHighlightsAndFieldListsThatPrintedAlike() {
        SearchRequest.Builder base = SearchRequest.builder("meadow");
        Map<String, Aggregation> two = new java.util.LinkedHashMap<>();
        two.put("a", new Aggregation.Stats("x"));
        two.put("b", new Aggregation.Stats("y"));
        Map<String, Aggregation> one = Map.of("a", new Aggregation.Stats("x, missing=null], b=Stats[field=y"));
        assertThat(two.toString()).as("the collision this test guards").isEqualTo(one.toString());
        assertThat(Fingerprints.key(base.aggs(two).build())).isNotEqualTo(Fingerprints.key(base.aggs(one).build()));

        Aggregation twoRanges = new Aggregation.Range("n", List.of(new Aggregation.RangeBucket("k", 1.0, 2.0),
                new Aggregation.RangeBucket("j", 3.0, 4.0)));
        Aggregation oneRange = new Aggregation.Range("n", List.of(new Aggregation.RangeBucket(
                "k, from=1.0, to=2.0], RangeBucket[key=j", 3.0, 4.0)));
        assertThat(Fingerprints.key(base.aggs(Map.of("r", twoRanges)).build()))
                .isNotEqualTo(Fingerprints.key(base.aggs(Map.of("r", oneRange)).build()));
        base.aggs(Map.of());

        Highlight tagsA = new Highlight(Map.of("body", Highlight.Field.DEFAULT), "<x, postTag=y>", "z");
        Highlight tagsB = new Highlight(Map.of("body", Highlight.Field.DEFAULT), "<x", "y>, postTag=z");
        assertThat(Fingerprints.key(base.highlight(tagsA).build()))
                .isNotEqualTo(Fingerprints.key(base.highlight(tagsB).build()));
        base.highlight(null);

        assertThat(Fingerprints.key(base.fields(List.of("title", "date")).build()))
                .isNotEqualTo(Fingerprints.key(base.fields(List.of("title, date")).build()));
        base.fields(null);
        assertThat(Fingerprints.key(base.sort(List.of(SortField.asc("a"), SortField.asc("b"))).build()))
                .isNotEqualTo(Fingerprints.key(base.sort(List.of(SortField.asc("a, descending=false], SortField[field=b")))
                        .build()));
    }

    @Test
    void distinguishesTheNewAggregationOptions() {
        SearchRequest.Builder base = SearchRequest.builder("meadow");
        List<Aggregation> variants = List.of(
                Aggregation.Terms.of("cat", 5),
                new Aggregation.Terms("cat", 5, 17, 2, Aggregation.TermsOrder.COUNT_DESC, null),
                new Aggregation.Terms("cat", 5, 17, 1, Aggregation.TermsOrder.KEY_ASC, null),
                new Aggregation.Terms("cat", 5, 17, 1, Aggregation.TermsOrder.COUNT_DESC, "none"),
                new Aggregation.Terms("cat", 5, 17, 1, Aggregation.TermsOrder.COUNT_DESC, 3L),
                new Aggregation.Terms("cat", 5, 17, 1, Aggregation.TermsOrder.COUNT_DESC, "3"),
                new Aggregation.Histogram("n", 5),
                new Aggregation.Histogram("n", 5, 1, 0, null),
                new Aggregation.Histogram("n", 5, 0, 1, null),
                new Aggregation.Histogram("n", 5, 0, 0, new Aggregation.ExtendedBounds(0, 100)),
                Aggregation.DateHistogram.calendar("d", Aggregation.CalendarUnit.DAY),
                new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.DAY, java.time.ZoneId.of("Europe/Paris"), 0, 0, null),
                new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.DAY, java.time.ZoneOffset.UTC, 3_600_000, 0, null),
                new Aggregation.DateHistogram("d", 0, Aggregation.CalendarUnit.DAY, java.time.ZoneOffset.UTC, 0, 1, null),
                new Aggregation.Range("n", List.of(new Aggregation.RangeBucket(null, 1.0, 2.0))),
                new Aggregation.Range("n", List.of(new Aggregation.RangeBucket(null, 1.0, 2.0)), true),
                new Aggregation.Stats("n"),
                new Aggregation.Stats("n", 0.0));
        List<CacheKey> keys = variants.stream().map(agg -> Fingerprints.key(base.aggs(Map.of("a", agg)).build())).toList();
        assertThat(keys).doesNotHaveDuplicates();
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
