package io.hedgerow.root.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The validator {@code OpenApiDocumentTest} relies on finds what it must find. */
@Timeout(10)
class SchemaSubsetValidatorTest {
    private final ObjectMapper json = new ObjectMapper();

    private final JsonNode document = read("""
            {"components": {"schemas": {
              "Hit": {"type": "object", "properties": {"id": {"type": "string"}, "score": {"type": "number"},
                      "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                      "fields": {"type": "object", "additionalProperties": {"type": "string"}}},
                      "required": ["id", "score"], "additionalProperties": false},
              "Error": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"],
                        "additionalProperties": false},
              "Either": {"oneOf": [{"$ref": "#/components/schemas/Hit"}, {"$ref": "#/components/schemas/Error"}]},
              "Count": {"type": ["integer", "null"]}}}}""");

    @Test
    void acceptsAValueThatMatchesAndRemembersItsProperties() {
        SchemaSubsetValidator validator = new SchemaSubsetValidator(document);

        assertThat(validate(validator, "Hit", "{\"id\": \"d\", \"score\": 1.5, \"tags\": [\"a\"], \"fields\": {\"t\": \"x\"}}"))
                .isEmpty();
        assertThat(validate(validator, "Count", "null")).isEmpty();
        assertThat(validator.seen()).containsExactlyInAnyOrder("#/components/schemas/Hit/properties/id",
                "#/components/schemas/Hit/properties/score", "#/components/schemas/Hit/properties/tags",
                "#/components/schemas/Hit/properties/fields");
    }

    @Test
    void findsUndocumentedAndMissingFieldsWrongTypesAndValuesOutsideTheEnum() {
        SchemaSubsetValidator validator = new SchemaSubsetValidator(document);

        assertThat(validate(validator, "Hit", "{\"id\": \"d\", \"extra\": 1, \"tags\": [\"c\"], \"fields\": {\"t\": 3}}"))
                .containsExactlyInAnyOrder(
                        "$.extra: undocumented field (documented: [id, score, tags, fields])",
                        "$.tags[0]: \"c\" (expected one of: [\"a\",\"b\"])",
                        "$.fields.t: number 3 (expected: \"string\")",
                        "$: missing required field 'score'");
        assertThat(validate(validator, "Count", "1.5")).containsExactly("$: number 1.5 (expected: [\"integer\",\"null\"])");
    }

    @Test
    void oneOfMatchesExactlyOneOption() {
        SchemaSubsetValidator validator = new SchemaSubsetValidator(document);

        assertThat(validate(validator, "Either", "{\"error\": \"x\"}")).isEmpty();
        assertThat(validate(validator, "Either", "{\"error\": 1}")).singleElement().asString()
                .startsWith("$: matches 0 of oneOf (expected: exactly 1)");
    }

    private java.util.List<String> validate(SchemaSubsetValidator validator, String schema, String value) {
        return validator.validate(read(value), document.at("/components/schemas/" + schema), "#/components/schemas/" + schema);
    }

    private JsonNode read(String text) {
        try {
            return json.readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
