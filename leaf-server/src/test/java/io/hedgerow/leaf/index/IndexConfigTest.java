package io.hedgerow.leaf.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexConfigTest {
    @TempDir
    Path tmp;

    @Test
    void defaultsIndexEveryFieldAsStoredTextWithSnippetsOfTheBody() {
        IndexConfig config = IndexConfig.defaults();

        assertThat(config.analyzer()).isEqualTo("standard");
        assertThat(config.fields()).isEmpty();
        assertThat(config.unknownFields()).isEqualTo(IndexConfig.UnknownFields.TEXT);
        assertThat(config.defaultFields()).isEmpty();
        assertThat(config.snippetField()).isEqualTo("body");
        assertThat(config.specOf("anything")).isEqualTo(FieldSpec.text(true, true));
        assertThat(config.queryFields(List.of("title", "body"))).containsExactly("title", "body");
    }

    @Test
    void aQueryWithoutLangSearchesATextFieldItselfAndWithLangItsCopyForThatLanguage() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("body", FieldSpec.text(true, false).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("n", FieldSpec.of(FieldSpec.Type.LONG, true));
        IndexConfig config = new IndexConfig("standard", fields, IndexConfig.UnknownFields.REJECT, List.of(), null);
        List<String> seen = List.of("title", "body", "body.de", "body.fr", "lang", "n");

        assertThat(config.queryFields(seen)).as("not every copy: that cost 2.5x the CPU").containsExactly("title", "body");
        assertThat(config.queryFields(seen, "de")).containsExactly("title", "body.de");
        assertThat(config.isLanguageCopy("body.de")).isTrue();
        assertThat(config.isLanguageCopy("title.de")).as("title has no language field").isFalse();
        assertThat(config.typeOf("body.fr")).isEqualTo(FieldSpec.Type.TEXT);
    }

    @Test
    void readsEverySettingFromAFile() throws IOException {
        Path file = write("""
                {
                  "analyzer": "english",
                  "fields": {
                    "title": {"type": "text"},
                    "body": {"type": "text", "stored": true, "returned": false},
                    "tag": {"type": "keyword", "stored": false}
                  },
                  "unknown_fields": "ignore",
                  "default_fields": ["title", "body"],
                  "snippet_field": "body"
                }
                """);

        IndexConfig config = IndexConfig.read(file);

        assertThat(config.analyzer()).isEqualTo("english");
        assertThat(config.fields().keySet()).containsExactly("title", "body", "tag");
        assertThat(config.fields().get("title")).isEqualTo(FieldSpec.text(true, true));
        assertThat(config.fields().get("body")).isEqualTo(FieldSpec.text(true, false));
        assertThat(config.fields().get("tag")).isEqualTo(new FieldSpec(FieldSpec.Type.KEYWORD, false, false));
        assertThat(config.unknownFields()).isEqualTo(IndexConfig.UnknownFields.IGNORE);
        assertThat(config.specOf("other")).isNull();
        assertThat(config.defaultFields()).containsExactly("title", "body");
        assertThat(config.snippetField()).isEqualTo("body");
    }

    @Test
    void readsAnEmptyObjectAsTheDefaultsWithoutSnippets() throws IOException {
        assertThat(IndexConfig.read(write("{}"))).isEqualTo(new IndexConfig(null, null, null, null, null));
    }

    @Test
    void rejectsAnUnknownKeyNamingTheFileAndTheKey() throws IOException {
        Path file = write("{\"analyser\": \"english\"}");

        assertThatThrownBy(() -> IndexConfig.read(file))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("invalid index config " + file + " (line 1, column ")
                .hasMessageEndingWith("unknown key 'analyser'"
                        + " (expected one of [analyzer, default_fields, fields, routing, snippet_field, unknown_fields])")
                .hasMessageNotContaining("\n");
    }

    @Test
    void rejectsAnUnknownKeyInsideAFieldWithItsPath() throws IOException {
        Path file = write("{\"fields\": {\"title\": {\"stord\": true}}}");

        assertThatThrownBy(() -> IndexConfig.read(file)).hasMessageContaining("unknown key 'fields.title.stord'");
    }

    @Test
    void rejectsAnUnknownAnalyzerNamingTheFileAndTheChoices() throws IOException {
        Path file = write("{\"analyzer\": \"klingon\"}");

        assertThatThrownBy(() -> IndexConfig.read(file))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("invalid index config " + file)
                .hasMessageEndingWith(": analyzer: 'klingon' (expected one of " + Analyzers.NAMES + ")");
    }

    @Test
    void rejectsAnUnknownEnumValueListingTheChoices() throws IOException {
        Path file = write("{\"unknown_fields\": \"allow\"}");

        assertThatThrownBy(() -> IndexConfig.read(file))
                .hasMessageEndingWith(": unknown_fields: 'allow' (expected one of [text, ignore, reject])");
    }

    @Test
    void rejectsAFieldWithoutSettings() throws IOException {
        Path file = write("{\"fields\": {\"title\": null}}");

        assertThatThrownBy(() -> IndexConfig.read(file)).hasMessageContaining("fields: 'title' has no settings");
    }

    @Test
    void rejectsAReturnedFieldThatIsNotStoredNamingTheField() throws IOException {
        Path file = write("{\"fields\": {\"body\": {\"stored\": false, \"returned\": true}}}");

        assertThatThrownBy(() -> IndexConfig.read(file))
                .hasMessageContaining("fields.body: returned: true needs stored: true");
    }

    @Test
    void rejectsMalformedJsonNamingTheFileAndThePlace() throws IOException {
        Path file = write("{\"analyzer\": ");

        assertThatThrownBy(() -> IndexConfig.read(file))
                .hasMessageStartingWith("invalid index config " + file + " (line ")
                .hasMessageContaining("Unexpected end-of-input")
                .hasMessageNotContaining("\n");
    }

    @Test
    void reportsAMissingFileByName() {
        Path missing = tmp.resolve("missing.json");

        assertThatThrownBy(() -> IndexConfig.read(missing))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessage(missing + ": no such index config file");
    }

    private Path write(String json) throws IOException {
        return Files.writeString(tmp.resolve("config.json"), json);
    }
}
