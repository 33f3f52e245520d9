package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hedgerow.api.Highlight;
import io.hedgerow.api.SearchRequest;
import io.hedgerow.leaf.index.FieldSpec;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.IndexManifest;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Elasticsearch's {@code fields} and {@code highlight}, checked against the served index. */
@Timeout(30)
class SearchFieldsParsingTest {
    private static final IndexManifest MANIFEST = manifest();

    private final SearchRequestParser parser = new SearchRequestParser(60_000, () -> MANIFEST);

    private static IndexManifest manifest() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false));
        fields.put("date", FieldSpec.of(FieldSpec.Type.DATE, true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of(), "body");
        return new IndexManifest(IndexManifest.FORMAT, "t", 1, config, List.of("title", "body", "date"), 1, 0, List.of(0L),
                "2026-11-28T00:00:00Z");
    }

    private SearchRequest get(String uri) throws ApiException {
        return parser.fromParameters(new QueryStringDecoder(uri).parameters());
    }

    private SearchRequest post(String json) throws ApiException {
        return parser.fromJson(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
    }

    @Test
    void readsAFieldListFromABodyOrAQueryString() throws ApiException {
        assertThat(post("{\"query\": \"x\", \"fields\": [\"title\", \"date\"]}").fields()).containsExactly("title", "date");
        assertThat(get("/search?q=x&fields=title,date").fields()).containsExactly("title", "date");
        assertThat(get("/search?q=x&fields=id").fields()).containsExactly("id");
    }

    @Test
    void anEmptyListAsksForNoFieldsAndNoListForEvery() throws ApiException {
        SearchRequest none = post("{\"query\": \"x\", \"fields\": []}");
        assertThat(none.fields()).isEmpty();
        assertThat(none.returnsFields()).isFalse();
        assertThat(get("/search?q=x&fields=").fields()).isEmpty();
        SearchRequest every = post("{\"query\": \"x\"}");
        assertThat(every.fields()).isNull();
        assertThat(every.returnsFields()).isTrue();
        assertThat(post("{\"query\": \"x\", \"fields\": [\"title\"], \"stored_fields\": false}").returnsFields()).isFalse();
    }

    @Test
    void refusesFieldsTheIndexCannotHaveNamingEachOfThem() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"fields\": [\"title\", \"titel\", \"datum\"]}"))
                .isInstanceOf(ApiException.class)
                .hasMessage("fields: unknown fields titel, datum (expected: fields of the index: title, body, date)");
        assertThatThrownBy(() -> get("/search?q=x&fields=title,nope"))
                .hasMessageContaining("fields: unknown field nope");
    }

    @Test
    void refusesAFieldListOfTheWrongShape() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"fields\": \"title\"}"))
                .hasMessageContaining("field 'fields' must be an array of field names");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"fields\": [\"title\", 3]}"))
                .hasMessageContaining("fields: 3 (expected: a field name, a non-empty string)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"fields\": [\"\"]}"))
                .hasMessageContaining("fields: \"\" (expected: a field name");
        assertThatThrownBy(() -> get("/search?q=x&fields=title,,date"))
                .hasMessageContaining("parameter 'fields': 'title,,date' has an empty name");
        String many = "[" + String.join(",", java.util.Collections.nCopies(SearchRequest.MAX_FIELDS + 1, "\"title\"")) + "]";
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"fields\": " + many + "}"))
                .hasMessageContaining("fields: 101 names (expected: <= 100)");
    }

    @Test
    void readsAHighlightInElasticsearchsShape() throws ApiException {
        Highlight highlight = post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {}, \"title\":"
                + " {\"number_of_fragments\": 0, \"fragment_size\": 40}}, \"pre_tags\": [\"<mark>\"],"
                + " \"post_tags\": [\"</mark>\"]}}").highlight();
        assertThat(highlight.fields().keySet()).containsExactly("body", "title");
        assertThat(highlight.fields().get("body")).isEqualTo(Highlight.Field.DEFAULT);
        assertThat(highlight.fields().get("title")).isEqualTo(new Highlight.Field(0, 40));
        assertThat(highlight.preTag()).isEqualTo("<mark>");
        assertThat(highlight.postTag()).isEqualTo("</mark>");
        Highlight defaults = post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {}}}}").highlight();
        assertThat(defaults.preTag()).isEqualTo("<em>");
        assertThat(defaults.postTag()).isEqualTo("</em>");
        assertThat(post("{\"query\": \"x\"}").highlight()).isNull();
    }

    @Test
    void refusesABadHighlightNamingWhatIsWrong() {
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"date\": {}}}}"))
                .hasMessage("highlight.fields: date is not a text field of the index (expected: text fields, such as title, body)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {}}}"))
                .hasMessageContaining("highlight.fields: {} (expected: an object of 1..10 text fields");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {}}, \"order\": \"score\"}}"))
                .hasMessage("highlight: unknown setting 'order' (expected one of: fields, pre_tags, post_tags)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {\"number_of_fragments\": 51}}}}"))
                .hasMessage("highlight.fields.body.number_of_fragments: 51 (expected: 0..50, 0 for the whole field)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {\"fragment_size\": \"9\"}}}}"))
                .hasMessage("highlight.fields.body.fragment_size: \"9\" (expected: an integer)");
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {}}, \"pre_tags\": [\"<a>\", \"<b>\"]}}"))
                .hasMessageContaining("highlight.pre_tags: [\"<a>\",\"<b>\"] (expected: one tag in an array");
        String longTag = "<" + "x".repeat(Highlight.MAX_TAG_CHARS) + ">";
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {\"body\": {}}, \"post_tags\": [\""
                + longTag + "\"]}}")).hasMessage("highlight.post_tags: 66 characters (expected: <= 64)");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 11; i++) {
            many.append(i == 0 ? "" : ", ").append("\"f").append(i).append("\": {}");
        }
        assertThatThrownBy(() -> post("{\"query\": \"x\", \"highlight\": {\"fields\": {" + many + "}}}"))
                .hasMessage("highlight.fields: 11 fields (expected: 1..10)");
    }
}
