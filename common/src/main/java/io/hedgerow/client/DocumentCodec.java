package io.hedgerow.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the document routes: a document's fields for {@code PUT}, JSON lines for a bulk
 * {@code POST}, and the root's answers back into {@link DocumentResponse} and {@link BulkResponse}.
 */
final class DocumentCodec {
    private final ObjectMapper json;

    DocumentCodec(ObjectMapper json) {
        this.json = json;
    }

    byte[] fields(Map<String, ?> fields) {
        try {
            return json.writeValueAsBytes(fields);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("fields: not writable as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** One line per document, each with its {@code id} first. */
    byte[] lines(List<Document> documents) {
        StringBuilder lines = new StringBuilder();
        for (Document document : documents) {
            ObjectNode line = json.createObjectNode();
            line.put("id", document.id());
            line.setAll((ObjectNode) json.valueToTree(document.fields()));
            lines.append(line).append('\n');
        }
        return lines.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Whether an answer of a document route is a document's outcome (rather than a refusal of the request). */
    static boolean isDocument(JsonNode body) {
        return body != null && body.path("result").isTextual();
    }

    static DocumentResponse document(JsonNode node) {
        Map<String, Object> fields = new LinkedHashMap<>();
        node.path("fields").properties().forEach(field -> fields.put(field.getKey(), valueOf(field.getValue())));
        return new DocumentResponse(node.path("id").asText(), DocumentResponse.Outcome.parse(node.path("result").asText()),
                node.path("status").asInt(), node.path("version").asLong(0), node.path("error").asText(""), fields);
    }

    /** A read field: a string, or a list of strings for a JSON array (a multi-valued field). */
    private static Object valueOf(JsonNode value) {
        if (value.isArray()) {
            List<String> values = new ArrayList<>();
            value.forEach(each -> values.add(each.isTextual() ? each.asText() : each.toString()));
            return values;
        }
        return value.isTextual() ? value.asText() : value.toString();
    }

    static BulkResponse bulk(JsonNode body) {
        List<BulkResponse.Item> items = new ArrayList<>();
        for (JsonNode item : body.path("items")) {
            DocumentResponse document = isDocument(item) ? document(item) : null;
            items.add(new BulkResponse.Item(item.path("line").asLong(), item.path("status").asInt(), document,
                    item.path("error").asText("")));
        }
        return new BulkResponse(body.path("took_ms").asDouble(), body.path("errors").asBoolean(), items);
    }
}
