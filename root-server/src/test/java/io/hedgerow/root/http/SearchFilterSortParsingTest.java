package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.Filter;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.api.SortField;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SearchFilterSortParsingTest {
    private final SearchRequestParser parser = new SearchRequestParser(60_000);

    private SearchRequest get(String uri) throws ApiException {
        return parser.fromParameters(new QueryStringDecoder(uri).parameters());
    }

    private SearchRequest post(String json) throws ApiException {
        return parser.fromJson(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
    }

    @Test
    void readsAFilterInElasticsearchsShapes() throws ApiException {
        SearchRequest request = post("""
                {"query": "budget", "filter": {"bool": {
                    "must": [{"term": {"lang": "de"}}, {"range": {"date": {"gte": "2000-01-01", "lt": 1262304000000}}}],
                    "should": [{"terms": {"body_length": [100, 200]}}, {"exists": {"field": "title"}}],
                    "must_not": {"term": {"flag": {"value": true}}}}}}
                """);
        assertThat(request.filter()).isEqualTo(new Filter.Bool(
                List.of(Filter.term("lang", "de"), new Filter.Range("date", "2000-01-01", null, null, "1262304000000")),
                List.of(Filter.terms("body_length", List.of("100", "200")), Filter.exists("title")),
                List.of(Filter.term("flag", "true"))));
    }

    @Test
    void refusesABadFilterSayingWhereAndWhatWasExpected() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"filter\": {\"match\": {\"a\": 1}}}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("filter: unknown filter 'match'");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"filter\": {\"bool\": {\"must\": [{\"range\": {\"d\": {\"from\": 1}}}]}}}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("filter.bool.must[0].range.d: unknown bound 'from'");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"filter\": {\"term\": {\"a\": [1]}}}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("filter.term.a: expected a string, number or boolean");
    }

    @Test
    void readsSortFromPagingSizeAndTrackTotalHits() throws ApiException {
        SearchRequest posted = post("""
                {"query": "x", "sort": ["lang", {"date": "desc"}, {"body_length": {"order": "asc"}}, "_score"],
                 "size": 0, "from": 20, "track_total_hits": true, "lang": "fr"}
                """);
        assertThat(posted.sort()).containsExactly(SortField.asc("lang"), SortField.desc("date"), SortField.asc("body_length"),
                SortField.desc("_score"));
        assertThat(posted.k()).isZero();
        assertThat(posted.from()).isEqualTo(20);
        assertThat(posted.totalHitsThreshold()).isEqualTo(SearchRequest.MAX_TOTAL_HITS_THRESHOLD);
        assertThat(posted.lang()).isEqualTo("fr");
        SearchRequest got = get("/search?q=x&sort=date:desc,lang&from=5&size=3&lang=de");
        assertThat(got.sort()).containsExactly(SortField.desc("date"), SortField.asc("lang"));
        assertThat(got.from()).isEqualTo(5);
        assertThat(got.k()).isEqualTo(3);
    }

    @Test
    void readsSearchAfterAsTheLastHitsSortValues() throws ApiException {
        SearchRequest request = post("{\"query\": \"x\", \"sort\": [{\"date\": \"desc\"}, \"price\"], \"search_after\": [1262304000000, null, \"doc-7\"]}");
        assertThat(request.searchAfter()).isEqualTo(Arrays.asList(1262304000000L, null, "doc-7"));
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"search_after\": [1, \"a\"]}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("search_after: needs a sort");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"sort\": \"date\", \"search_after\": [1]}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("expected: 2, the last hit's sort values");
    }

    @Test
    void refusesAPagePastTheWindowPointingToSearchAfter() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"from\": 9995, \"k\": 10}"))
                .isInstanceOf(ApiException.class)
                .hasMessageContaining("from: 9995 with k 10 (expected: from >= 0 and from + k <= 10000; page deeper with search_after)")
                .satisfies(e -> assertThat(((ApiException) e).status().code()).isEqualTo(400));
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"k\": 1, \"size\": 2}"))
                .isInstanceOf(ApiException.class).hasMessageContaining("both k and size");
    }
}
