package io.hedgerow.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.hedgerow.api.Coverage;
import io.hedgerow.api.SearchResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The root's {@code coverage.degraded} list (written only when non-empty) read into {@link Coverage#degraded()}. */
@Timeout(10)
class SearchResultDecoderTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SearchResult decode(String coverage) throws Exception {
        return SearchResultDecoder.decode(JSON.readTree("""
                {"took_ms":1.5,"total_hits":{"value":0,"relation":"eq"},"tainted":false,"cache":"miss",
                 "degraded":%s,"coverage":%s,"hits":[]}""".formatted(coverage.contains("degraded"), coverage)), List.of(), Map.of());
    }

    @Test
    void degradationsAreReadByLabel() throws Exception {
        SearchResult result = decode("""
                {"partitions_total":2,"partitions_answered":2,"docs_fraction":1.0,"degraded":["fetch_failed","stale_copy"]}""");
        assertThat(result.coverage().degraded())
                .containsExactlyInAnyOrder(Coverage.Degradation.FETCH_FAILED, Coverage.Degradation.STALE_COPY);
        assertThat(result.degraded()).isTrue();
    }

    @Test
    void anAbsentListIsNothingDegraded() throws Exception {
        SearchResult result = decode("{\"partitions_total\":2,\"partitions_answered\":2,\"docs_fraction\":1.0}");
        assertThat(result.coverage().degraded()).isEmpty();
        assertThat(result.degraded()).isFalse();
    }

    @Test
    void anUnknownLabelIsNamed() {
        assertThatThrownBy(() -> decode("""
                {"partitions_total":2,"partitions_answered":2,"docs_fraction":1.0,"degraded":["mouldy"]}"""))
                .hasMessageContaining("'mouldy'").hasMessageContaining("stale_copy");
    }

    @Test
    void aMultiValuedFieldIsReadWithEveryValueAndItsFirstInFields() throws Exception {
        com.fasterxml.jackson.databind.JsonNode json = JSON.readTree("""
                {"id":"d-1","score":1.5,"partition":0,"fields":{"title":"heron","tags":["grey","wader","grey"]}}""");
        io.hedgerow.api.Hit hit = SearchResultDecoder.hit(json, List.of());

        assertThat(hit.fields()).containsExactly(Map.entry("title", "heron"), Map.entry("tags", "grey"));
        assertThat(hit.multiValues()).containsExactly(Map.entry("tags", List.of("grey", "wader", "grey")));
        assertThat(hit.values("tags")).containsExactly("grey", "wader", "grey");
        assertThat(hit.values("title")).containsExactly("heron");
        assertThat(hit.values("absent")).isEmpty();
    }

    @Test
    void aHitsHighlightIsReadInTheOrderGivenAndAbsentIsNull() throws Exception {
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                {"id":"d-1","score":1.5,"partition":0,"snippet":"a <b>heron</b>",
                 "highlight":{"title":["<em>heron</em> 1"],"body":["the <em>heron</em> &amp; a","by the <em>heron</em>"]}}""");
        io.hedgerow.api.Hit hit = SearchResultDecoder.hit(json, java.util.List.of());
        assertThat(hit.highlight().keySet()).containsExactly("title", "body");
        assertThat(hit.highlight().get("body")).containsExactly("the <em>heron</em> &amp; a", "by the <em>heron</em>");
        assertThat(hit.snippet()).isEqualTo("a <b>heron</b>");
        com.fasterxml.jackson.databind.JsonNode plain = new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                {"id":"d-1","score":1.5,"partition":0}""");
        assertThat(SearchResultDecoder.hit(plain, java.util.List.of()).highlight()).isNull();
    }
}
