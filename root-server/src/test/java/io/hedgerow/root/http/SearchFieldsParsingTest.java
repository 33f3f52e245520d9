package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

/** Elasticsearch's {@code fields}: which stored fields hits carry, checked against the served index. */
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
}
