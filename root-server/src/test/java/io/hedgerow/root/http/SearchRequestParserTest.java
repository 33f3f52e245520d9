package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.Aggregation;
import io.hedgerow.api.HedgeMode;
import io.hedgerow.api.QueryPriority;
import io.hedgerow.api.SearchRequest;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SearchRequestParserTest {
    private final SearchRequestParser parser = new SearchRequestParser(60_000);

    private SearchRequest get(String uri) throws ApiException {
        return parser.fromParameters(new QueryStringDecoder(uri).parameters());
    }

    private SearchRequest post(String json) throws ApiException {
        return parser.fromJson(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
    }

    @Test
    void readsEveryParameterOfAGet() throws ApiException {
        SearchRequest request = get("/search?q=european+parliament&k=5&timeout_ms=250&snippets=false&stored_fields=0&total_hits_threshold=50");
        assertThat(request).isEqualTo(new SearchRequest("european parliament", 5, 250, false, false, 50, null, 0, false,
                QueryPriority.INTERACTIVE, 0, true));
    }

    @Test
    void readsARoutingValueFromAGetOrAPost() throws ApiException {
        assertThat(get("/search?q=x&routing=de").routing()).isEqualTo("de");
        assertThat(post("{\"query\": \"x\", \"routing\": \"fr\"}").routing()).isEqualTo("fr");
        assertThat(get("/search?q=x").routing()).isNull();
        assertThatThrownBy(() -> get("/search?q=x&routing=")).isInstanceOf(ApiException.class)
                .hasMessageContaining("routing: 0 characters");
    }

    @Test
    void readsAllowStaleFromAGetOrAPostAndDefaultsToFalse() throws ApiException {
        assertThat(get("/search?q=x").allowStale()).isFalse();
        assertThat(get("/search?q=x&allow_stale=true").allowStale()).isTrue();
        assertThat(post("{\"query\": \"x\", \"allow_stale\": true}").allowStale()).isTrue();
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"allow_stale\": \"yes\"}")).isInstanceOf(ApiException.class)
                .hasMessageContaining("allow_stale");
    }

    @Test
    void readsHedgingAndExplain() throws ApiException {
        assertThat(get("/search?q=x&hedge=tied&explain=true"))
                .isEqualTo(SearchRequest.builder("x").hedge(HedgeMode.TIED).explain(true).build());
        SearchRequest fixed = post("{\"query\": \"x\", \"hedge_after_ms\": 10}");
        assertThat(fixed.hedgeAfterMillis()).isEqualTo(10);
        assertThat(fixed.hedgeMode(HedgeMode.OFF)).isEqualTo(HedgeMode.HEDGED);
        assertThat(get("/search?q=x").hedgeMode(HedgeMode.TIED)).isEqualTo(HedgeMode.TIED);
        assertThat(get("/search?q=x&hedge=off").hedgeMode(HedgeMode.TIED)).isEqualTo(HedgeMode.OFF);
    }

    @Test
    void readsPriorityCoverageAndCache() throws ApiException {
        assertThat(get("/search?q=x&priority=batch&min_coverage=0.9&cache=false"))
                .isEqualTo(SearchRequest.builder("x").priority(QueryPriority.BATCH).minCoverage(0.9).cache(false).build());
        SearchRequest posted = post("{\"query\": \"x\", \"priority\": \"interactive\", \"min_coverage\": 1, \"cache\": true}");
        assertThat(posted.minCoverage(0.95)).isEqualTo(1.0);
        assertThat(get("/search?q=x").minCoverage(0.95)).isEqualTo(0.95);
    }

    @Test
    void refusesBadPriorityCoverageAndCache() {
        assertThatThrownBy(() -> get("/search?q=x&priority=urgent"))
                .hasMessageContaining("priority: 'urgent' (expected: interactive or batch)");
        assertThatThrownBy(() -> get("/search?q=x&min_coverage=0")).hasMessageContaining("min_coverage: 0.0 (expected: > 0.0 and <= 1.0)");
        assertThatThrownBy(() -> get("/search?q=x&min_coverage=1.5")).hasMessageContaining("min_coverage: 1.5");
        assertThatThrownBy(() -> get("/search?q=x&min_coverage=NaN")).hasMessageContaining("min_coverage: NaN");
        assertThatThrownBy(() -> get("/search?q=x&min_coverage=most")).hasMessageContaining("parameter 'min_coverage': 'most' (expected: a number)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"min_coverage\": \"0.9\"}"))
                .hasMessageContaining("field 'min_coverage' must be a number");
        assertThatThrownBy(() -> get("/search?q=x&cache=maybe")).hasMessageContaining("parameter 'cache': 'maybe'");
    }

    @Test
    void refusesBadHedging() {
        assertThatThrownBy(() -> get("/search?q=x&hedge=sometimes"))
                .hasMessageContaining("sometimes").hasMessageContaining("hedged");
        assertThatThrownBy(() -> get("/search?q=x&hedge_after_ms=0")).hasMessageContaining("hedge_after_ms: 0");
        assertThatThrownBy(() -> get("/search?q=x&hedge=tied&hedge_after_ms=5"))
                .hasMessageContaining("hedge_after_ms: 5 with hedge tied");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"explain\": \"yes\"}"))
                .hasMessageContaining("field 'explain' must be true or false");
    }

    @Test
    void fillsDefaultsForAbsentSettings() throws ApiException {
        assertThat(post("{\"query\": \"x\"}")).isEqualTo(SearchRequest.of("x"));
        assertThat(get("/search?q=x")).isEqualTo(SearchRequest.of("x"));
    }

    @Test
    void readsAJsonBody() throws ApiException {
        assertThat(post("{\"query\": \"\\\"human rights\\\"\", \"k\": 3, \"timeout_ms\": 100, \"snippets\": false}"))
                .isEqualTo(new SearchRequest("\"human rights\"", 3, 100, false, true, 1000, null, 0, false,
                QueryPriority.INTERACTIVE, 0, true));
    }

    @Test
    void refusesBadParametersNamingThem() {
        assertThatThrownBy(() -> get("/search?k=3")).hasMessageContaining("missing parameter 'q'");
        assertThatThrownBy(() -> get("/search?q=x&k=abc")).hasMessageContaining("parameter 'k': 'abc' (expected: an integer)");
        assertThatThrownBy(() -> get("/search?q=x&k=-1")).hasMessageContaining("k: -1 (expected: 0..1000, 0 for counts only)");
        assertThatThrownBy(() -> get("/search?q=x&k=1001")).hasMessageContaining("k: 1001 (expected: 0..1000, 0 for counts only)");
        assertThatThrownBy(() -> get("/search?q=x&kk=1")).hasMessageContaining("unknown parameter 'kk'");
        assertThatThrownBy(() -> get("/search?q=x&q=y")).hasMessageContaining("parameter 'q' given 2 times");
        assertThatThrownBy(() -> get("/search?q=x&snippets=maybe")).hasMessageContaining("expected: true or false");
        assertThatThrownBy(() -> get("/search?q=x&timeout_ms=0")).hasMessageContaining("timeout_ms: 0 (expected: 1..60000)");
        assertThatThrownBy(() -> get("/search?q=+++")).hasMessageContaining("query: empty");
    }

    @Test
    void refusesBadJsonNamingTheFieldAndTheExpectedType() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"sise\": 3}"))
                .hasMessageContaining("unknown field 'sise'").hasMessageContaining("query, k, size, from, timeout_ms");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"k\": \"3\"}")).hasMessageContaining("field 'k' must be an integer");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"k\": 2.5}")).hasMessageContaining("field 'k' must be an integer");
        assertThatThrownBy(() -> post("{\"query\": 42}")).hasMessageContaining("field 'query' must be a string");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"snippets\": \"yes\"}")).hasMessageContaining("field 'snippets' must be true or false");
        assertThatThrownBy(() -> post("{\"query\": \"x\"")).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> post("[1, 2]")).hasMessageContaining("body must be a JSON object");
        assertThatThrownBy(() -> post("{\"k\": 3}")).hasMessageContaining("missing field 'query'");
        assertThatThrownBy(() -> post("")).hasMessageContaining("empty body");
        assertThatThrownBy(() -> post("{\"query\": \"\"}")).hasMessageContaining("query: empty");
        assertThatThrownBy(() -> post("{\"query\": \"x\"} {}")).hasMessageContaining("malformed JSON");
    }

    @Test
    void readsAggregationsInElasticsearchsShapes() throws ApiException {
        SearchRequest request = post("""
                {"query": "x", "size": 0, "aggs": {
                  "langs": {"terms": {"field": "lang", "size": 5}},
                  "wide": {"terms": {"field": "lang", "size": 5, "shard_size": 100}},
                  "n": {"range": {"field": "n", "ranges": [{"to": 10}, {"from": 10, "key": "many"}]}},
                  "price": {"histogram": {"field": "price", "interval": 2.5}},
                  "days": {"date_histogram": {"field": "date", "fixed_interval": "12h"}},
                  "months": {"date_histogram": {"field": "date", "calendar_interval": "1M"}},
                  "stats": {"stats": {"field": "n"}}}}""");

        assertThat(request.k()).isZero();
        assertThat(request.aggs().keySet()).containsExactly("langs", "wide", "n", "price", "days", "months", "stats");
        assertThat(request.aggs().get("langs")).isEqualTo(new Aggregation.Terms("lang", 5, 17)); // 5 * 1.5 + 10
        assertThat(request.aggs().get("wide")).isEqualTo(new Aggregation.Terms("lang", 5, 100));
        assertThat(request.aggs().get("n")).isEqualTo(new Aggregation.Range("n", List.of(
                new Aggregation.RangeBucket("*-10.0", null, 10.0), new Aggregation.RangeBucket("many", 10.0, null))));
        assertThat(request.aggs().get("price")).isEqualTo(new Aggregation.Histogram("price", 2.5));
        assertThat(request.aggs().get("days")).isEqualTo(Aggregation.DateHistogram.fixed("date", 12 * 3_600_000L));
        assertThat(request.aggs().get("months")).isEqualTo(Aggregation.DateHistogram.calendar("date",
                Aggregation.CalendarUnit.MONTH));
        assertThat(request.aggs().get("stats")).isEqualTo(new Aggregation.Stats("n"));
        assertThat(post("{\"query\": \"x\", \"aggregations\": {\"s\": {\"stats\": {\"field\": \"n\"}}}}").aggs())
                .containsKey("s");
    }

    @Test
    void refusesAggregationsThatCannotRunNamingWhere() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"avg\": {\"field\": \"n\"}}}}"))
                .hasMessageContaining("aggs.a: unknown aggregation 'avg' (expected: terms, range, histogram, date_histogram or stats)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"size\": 3}}}}"))
                .hasMessageContaining("aggs.a.terms: missing field");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"field\": \"f\", \"include\": \"a.*\"}}}}"))
                .hasMessageContaining("aggs.a.terms: unknown parameter 'include'");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"field\": \"f\", \"order\": 1}}}}"))
                .hasMessageContaining("aggs.a.terms.order: 1 (expected: {\"_count\": \"desc\"|\"asc\"} or {\"_key\": \"asc\"|\"desc\"})");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"field\": \"f\"},"
                + " \"aggs\": {}}}}")).hasMessageContaining("sub-aggregations are not supported");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"histogram\": {\"field\": \"f\","
                + " \"interval\": 0}}}}")).hasMessageContaining("interval 0.0 (expected: > 0)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"range\": {\"field\": \"f\","
                + " \"ranges\": [{\"from\": 5, \"to\": 1}]}}}}")).hasMessageContaining("aggs.a.range.ranges[0]: range: from 5.0 > to 1.0");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"date_histogram\": {\"field\": \"f\","
                + " \"calendar_interval\": \"fortnight\"}}}}")).hasMessageContaining("calendar_interval: 'fortnight'");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"date_histogram\": {\"field\": \"f\"}}}}"))
                .hasMessageContaining("exactly one of fixed_interval");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"field\": \"f\", \"size\": 6000}},"
                + " \"b\": {\"terms\": {\"field\": \"g\", \"size\": 6000}}}}"))
                .hasMessageContaining("aggs: 12000 buckets asked for (expected: <= 10000");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": [1]}")).hasMessageContaining("aggs: expected an object");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {}, \"aggregations\": {}}"))
                .hasMessageContaining("both aggs and aggregations");
    }

    @Test
    void readsElasticsearchsAggregationOptions() throws ApiException {
        SearchRequest request = post("""
                {"query": "x", "aggs": {
                  "rare": {"terms": {"field": "lang", "size": 3, "min_doc_count": 2, "order": {"_count": "asc"}, "missing": "none"}},
                  "byKey": {"terms": {"field": "n", "order": [{"_key": "desc"}], "missing": 7}},
                  "old": {"terms": {"field": "lang", "order": {"_term": "asc"}}},
                  "n": {"range": {"field": "n", "keyed": true, "ranges": [{"to": 10}, {"key": "many", "from": 10}]}},
                  "price": {"histogram": {"field": "price", "interval": 5, "offset": 2.5, "extended_bounds": {"min": 0, "max": 50}}},
                  "dense": {"histogram": {"field": "price", "interval": 5, "min_doc_count": 3}},
                  "months": {"date_histogram": {"field": "date", "calendar_interval": "month", "time_zone": "Europe/Paris",
                      "offset": "+6h", "extended_bounds": {"min": "2024-01-01T00:00:00Z", "max": 1735689600000}}},
                  "hours": {"date_histogram": {"field": "date", "fixed_interval": "3h", "time_zone": "-05:30", "offset": -60000,
                      "min_doc_count": 1}},
                  "stats": {"stats": {"field": "n", "missing": 0}}}}""");
        assertThat(request.aggs().get("rare")).isEqualTo(new Aggregation.Terms("lang", 3, 14, 2,
                Aggregation.TermsOrder.COUNT_ASC, "none"));
        assertThat(request.aggs().get("byKey")).isEqualTo(new Aggregation.Terms("n", 10, 25, 1,
                Aggregation.TermsOrder.KEY_DESC, 7L));
        assertThat(((Aggregation.Terms) request.aggs().get("old")).order()).isEqualTo(Aggregation.TermsOrder.KEY_ASC);
        assertThat(request.aggs().get("n")).isEqualTo(new Aggregation.Range("n", List.of(
                new Aggregation.RangeBucket("*-10.0", null, 10.0), new Aggregation.RangeBucket("many", 10.0, null)), true));
        assertThat(request.aggs().get("price")).isEqualTo(new Aggregation.Histogram("price", 5, 0, 2.5,
                new Aggregation.ExtendedBounds(0, 50)));
        assertThat(request.aggs().get("dense")).isEqualTo(new Aggregation.Histogram("price", 5, 3, 0, null));
        assertThat(request.aggs().get("months")).isEqualTo(new Aggregation.DateHistogram("date", 0,
                Aggregation.CalendarUnit.MONTH, java.time.ZoneId.of("Europe/Paris"), 6 * 3_600_000L, 0,
                new Aggregation.ExtendedBounds(1_704_067_200_000.0, 1_735_689_600_000.0)));
        assertThat(request.aggs().get("hours")).isEqualTo(new Aggregation.DateHistogram("date", 3 * 3_600_000L, null,
                java.time.ZoneOffset.ofHoursMinutes(-5, -30), -60_000, 1, null));
        assertThat(request.aggs().get("stats")).isEqualTo(new Aggregation.Stats("n", 0.0));
    }

    @Test
    void refusesBadAggregationOptionsNamingTheOptionAndWhatWasExpected() {
        String terms = "{\"query\": \"x\", \"aggs\": {\"a\": {\"terms\": {\"field\": \"f\", ";
        assertThatThrownBy(() -> post(terms + "\"min_doc_count\": -1}}}}")).isInstanceOf(ApiException.class)
                .hasMessageContaining("aggs.a.terms.min_doc_count: -1 (expected: >= 0");
        assertThatThrownBy(() -> post(terms + "\"order\": {\"_count\": \"up\"}}}}}"))
                .hasMessageContaining("aggs.a.terms.order: order: 'up' (expected: asc or desc)");
        assertThatThrownBy(() -> post(terms + "\"order\": {\"avg_price\": \"asc\"}}}}}"))
                .hasMessageContaining("aggs.a.terms.order: order: by 'avg_price' (expected: _count or _key)");
        assertThatThrownBy(() -> post(terms + "\"missing\": [1]}}}}"))
                .hasMessageContaining("aggs.a.terms.missing: [1] (expected: a string or a number");
        String histogram = "{\"query\": \"x\", \"aggs\": {\"a\": {\"histogram\": {\"field\": \"f\", \"interval\": 5, ";
        assertThatThrownBy(() -> post(histogram + "\"offset\": 5}}}}"))
                .hasMessageContaining("aggs.a.histogram: histogram on 'f': offset 5.0 (expected: >= 0 and < interval 5.0)");
        assertThatThrownBy(() -> post(histogram + "\"min_doc_count\": -1}}}}"))
                .hasMessageContaining("aggs.a.histogram.min_doc_count: -1 (expected: >= 0)");
        assertThatThrownBy(() -> post(histogram + "\"min_doc_count\": 1, \"extended_bounds\": {\"min\": 0, \"max\": 9}}}}}"))
                .hasMessageContaining("extended_bounds with min_doc_count 1 (expected: min_doc_count 0");
        assertThatThrownBy(() -> post(histogram + "\"extended_bounds\": {\"min\": 9, \"max\": 0}}}}}"))
                .hasMessageContaining("extended_bounds: min 9.0, max 0.0 (expected: finite numbers, min <= max)");
        assertThatThrownBy(() -> post(histogram + "\"extended_bounds\": {\"min\": 0, \"max\": 1e9}}}}}"))
                .hasMessageContaining("extended_bounds span 200000001 buckets (expected: <= 10000)");
        assertThatThrownBy(() -> post(histogram + "\"extended_bounds\": {\"min\": 0}}}}}"))
                .hasMessageContaining("aggs.a.histogram.extended_bounds: expected both min and max");
        String dates = "{\"query\": \"x\", \"aggs\": {\"a\": {\"date_histogram\": {\"field\": \"f\", \"calendar_interval\": \"day\", ";
        assertThatThrownBy(() -> post(dates + "\"time_zone\": \"Mars/Olympus\"}}}}"))
                .hasMessageContaining("aggs.a.date_histogram.time_zone: 'Mars/Olympus' (expected: an IANA zone");
        assertThatThrownBy(() -> post(dates + "\"offset\": \"6 hours\"}}}}"))
                .hasMessageContaining("aggs.a.date_histogram.offset: offset: '6 hours' (expected: a signed whole number and a unit");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"range\": {\"field\": \"f\", \"keyed\": \"yes\","
                + " \"ranges\": [{\"to\": 1}]}}}}")).hasMessageContaining("aggs.a.range.keyed: \"yes\" (expected: true or false)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"range\": {\"field\": \"f\", \"keyed\": true,"
                + " \"ranges\": [{\"key\": \"k\", \"to\": 1}, {\"key\": \"k\", \"from\": 1}]}}}}"))
                .hasMessageContaining("key 'k' twice (expected: distinct keys when keyed)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"aggs\": {\"a\": {\"stats\": {\"field\": \"f\", \"missing\": \"0\"}}}}"))
                .hasMessageContaining("aggs.a.stats.missing: expected a number");
    }
}
