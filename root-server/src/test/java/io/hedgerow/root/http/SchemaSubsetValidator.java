package io.hedgerow.root.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Validates JSON values against the schemas of an OpenAPI 3.1 document, for the subset of JSON
 * Schema the root's document uses: {@code $ref} (to {@code #/components/schemas/...}), {@code type}
 * (one or several), {@code enum}, {@code properties}, {@code required}, {@code additionalProperties}
 * ({@code false}, {@code true} or a schema), {@code items} and {@code oneOf}. Keywords outside the
 * subset ({@code minimum}, {@code maxLength}...) are documentation here and not checked.
 *
 * <p>It also remembers which documented properties it has seen in a value, so a test can tell a
 * documented field no answer ever carried.
 */
final class SchemaSubsetValidator {
    private final JsonNode document;
    private final Set<String> seen = new TreeSet<>();

    SchemaSubsetValidator(JsonNode document) {
        this.document = document;
    }

    /** The problems of {@code value} against {@code schema} (located at {@code pointer}); empty when it is valid. */
    List<String> validate(JsonNode value, JsonNode schema, String pointer) {
        List<String> problems = new ArrayList<>();
        validate(value, schema, pointer, "$", problems, seen);
        return problems;
    }

    /** Pointers ({@code #/components/schemas/Hit/properties/snippet}) of every property seen so far. */
    Set<String> seen() {
        return seen;
    }

    /** Pointers of every property the schemas under {@code #/components/schemas} document, but those named. */
    Set<String> documentedProperties(Set<String> schemasLeftOut) {
        Set<String> properties = new TreeSet<>();
        for (Map.Entry<String, JsonNode> schema : document.path("components").path("schemas").properties()) {
            if (!schemasLeftOut.contains(schema.getKey())) {
                collect(schema.getValue(), "#/components/schemas/" + schema.getKey(), properties);
            }
        }
        return properties;
    }

    private static void collect(JsonNode schema, String pointer, Set<String> into) {
        for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
            String at = pointer + "/properties/" + property.getKey();
            into.add(at);
            collect(property.getValue(), at, into);
        }
        if (schema.has("items")) {
            collect(schema.get("items"), pointer + "/items", into);
        }
    }

    private void validate(JsonNode value, JsonNode schema, String pointer, String path, List<String> problems,
            Set<String> seenHere) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                problems.add(path + ": $ref " + ref + " (expected: a reference inside the document)");
                return;
            }
            JsonNode target = document.at(ref.substring(1));
            if (target.isMissingNode()) {
                problems.add(path + ": $ref " + ref + " names nothing");
                return;
            }
            validate(value, target, ref, path, problems, seenHere);
            return;
        }
        if (schema.has("oneOf")) {
            int matches = 0;
            List<String> all = new ArrayList<>();
            Set<String> seenByMatch = new TreeSet<>();
            int index = 0;
            for (JsonNode option : schema.get("oneOf")) {
                List<String> optionProblems = new ArrayList<>();
                Set<String> optionSeen = new TreeSet<>();
                validate(value, option, pointer + "/oneOf/" + index++, path, optionProblems, optionSeen);
                if (optionProblems.isEmpty()) {
                    matches++;
                    seenByMatch.addAll(optionSeen);
                } else {
                    all.addAll(optionProblems);
                }
            }
            if (matches != 1) {
                problems.add(path + ": matches " + matches + " of oneOf (expected: exactly 1)" + (matches == 0 ? ": " + all : ""));
            } else {
                seenHere.addAll(seenByMatch); // only the properties of the option that matched
            }
            return;
        }
        if (schema.has("type") && !typeMatches(value, schema.get("type"))) {
            problems.add(path + ": " + describe(value) + " (expected: " + schema.get("type") + ")");
            return;
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode allowed : schema.get("enum")) {
                listed |= allowed.equals(value);
            }
            if (!listed) {
                problems.add(path + ": " + value + " (expected one of: " + schema.get("enum") + ")");
            }
        }
        if (value.isObject()) {
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.get("additionalProperties");
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String fieldPath = path + "." + field.getKey();
                if (properties.has(field.getKey())) {
                    String at = pointer + "/properties/" + field.getKey();
                    seenHere.add(at);
                    validate(field.getValue(), properties.get(field.getKey()), at, fieldPath, problems, seenHere);
                } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
                    problems.add(fieldPath + ": undocumented field (documented: " + names(properties) + ")");
                } else if (additional != null && additional.isObject()) {
                    validate(field.getValue(), additional, pointer + "/additionalProperties", fieldPath, problems, seenHere);
                }
            }
            for (JsonNode required : schema.path("required")) {
                if (!value.has(required.asText())) {
                    problems.add(path + ": missing required field '" + required.asText() + "'");
                }
            }
        }
        if (value.isArray() && schema.has("items")) {
            int index = 0;
            for (JsonNode element : value) {
                validate(element, schema.get("items"), pointer + "/items", path + "[" + index++ + "]", problems, seenHere);
            }
        }
    }

    private static boolean typeMatches(JsonNode value, JsonNode type) {
        if (type.isArray()) {
            for (JsonNode one : type) {
                if (typeMatches(value, one)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asText()) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> throw new IllegalArgumentException("type: " + type + " (expected: a JSON Schema type)");
        };
    }

    private static String describe(JsonNode value) {
        String text = value.toString();
        return value.getNodeType().name().toLowerCase() + " " + (text.length() > 80 ? text.substring(0, 80) + "..." : text);
    }

    private static List<String> names(JsonNode properties) {
        List<String> names = new ArrayList<>();
        properties.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
