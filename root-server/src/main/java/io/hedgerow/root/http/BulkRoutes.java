package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.DocumentWriter.Refresh;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code POST /_bulk}: Elasticsearch's bulk API over the same write path as {@code /documents}.
 * The body is NDJSON pairs: an action line ({@code index}, {@code create}, {@code update} or
 * {@code delete}, with {@code _id} and optionally {@code routing}, {@code if_seq_no},
 * {@code if_primary_term}) and, except for {@code delete}, a source line ({@code update}:
 * {@code {"doc": {...}}}, optionally {@code "doc_as_upsert": true}). The answer lists every action's
 * outcome in order, as Elasticsearch's does: {@code _id}, {@code result}, {@code status},
 * {@code _seq_no} and {@code _version} (both the document's version: the seq of its last write),
 * {@code _primary_term} (always 1: there are no primary terms yet) and, when refused, an
 * {@code error} with Elasticsearch's {@code type} and a {@code reason}.
 *
 * <p>Where it differs: {@code _id} is required (no generated ids); {@code if_seq_no} maps to the
 * leaf's expected version and must be at least 1, and {@code if_primary_term} must be 1;
 * {@code update} reads the document and writes the merged fields only if it is still at the version
 * read (a 409 if it changed meanwhile; a document from the offline build, at version 0, is written
 * unconditionally); a field in {@code doc} replaces all of the document's values for it (an array
 * replaces an array).
 * A malformed action line fails the whole request with 400, as in Elasticsearch: the pairing of the
 * lines after it is unknown.
 */
final class BulkRoutes implements Routes {
    static final String PATH = "/_bulk";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DocumentWriter writer;

    BulkRoutes(DocumentWriter writer) {
        this.writer = writer;
    }

    @Override
    public boolean handles(String path) {
        return path.equals(PATH);
    }

    @Override
    public boolean isWrite(FullHttpRequest request) {
        return true;
    }

    /** One action of the body and, once sent, its outcome. */
    private record Item(String action, String id, CompletableFuture<DocumentResult> result, int status, String type,
            String reason) {
        static Item refused(String action, String id, int status, String type, String reason) {
            return new Item(action, id, null, status, type, reason);
        }
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        FullHttpRequest request = exchange.request();
        if (request.method() != HttpMethod.POST && request.method() != HttpMethod.PUT) {
            throw HttpApiHandler.methodNotAllowed(request, "POST, PUT");
        }
        DocumentRoutes.requireJsonLines(request);
        IndexConfig config = writer.config();
        if (config == null) {
            throw new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable",
                    "no leaf has told this root its index yet, so documents cannot be checked against its config");
        }
        Refresh refresh = DocumentRoutes.refresh(DocumentRoutes.parameter(exchange.uri(), "refresh"));
        long startNanos = System.nanoTime();
        List<Item> items = parse(request.content(), config, refresh);
        CompletableFuture<?>[] pending = items.stream().filter(item -> item.result() != null).map(Item::result)
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(pending).whenComplete((ignored, failure) -> answer(exchange, items, startNanos));
    }

    private List<Item> parse(ByteBuf body, IndexConfig config, Refresh refresh) throws ApiException {
        String[] lines = body.toString(StandardCharsets.UTF_8).split("\n");
        List<Item> items = new ArrayList<>();
        // The last op on each id, for the next one on that id to keep the bulk's order (see inOrder).
        Map<String, Last> lastById = new HashMap<>();
        int n = 0;
        while (n < lines.length) {
            String line = lines[n++].strip();
            if (line.isEmpty()) {
                continue;
            }
            int actionLine = n;
            JsonNode action;
            try {
                action = JSON.readTree(line);
            } catch (IOException e) {
                throw ApiException.badRequest("malformed action line " + actionLine + ": " + e.getMessage());
            }
            if (!(action instanceof ObjectNode object) || object.size() != 1) {
                throw ApiException.badRequest("malformed action line " + actionLine
                        + " (expected: an object with one of index, create, update, delete)");
            }
            String kind = object.fieldNames().next();
            JsonNode meta = object.get(kind);
            if (!List.of("index", "create", "update", "delete").contains(kind) || !meta.isObject()) {
                throw ApiException.badRequest("malformed action line " + actionLine + ": '" + kind
                        + "' (expected: index, create, update or delete, with an object of its metadata)");
            }
            JsonNode source = null;
            if (!kind.equals("delete")) {
                if (n >= lines.length) {
                    throw ApiException.badRequest("action line " + actionLine + " (" + kind
                            + ") has no source line after it");
                }
                try {
                    source = JSON.readTree(lines[n++]);
                } catch (IOException e) {
                    items.add(Item.refused(kind, text(meta, "_id"), 400, "mapper_parsing_exception",
                            "source line " + (actionLine + 1) + " is not valid JSON: " + e.getMessage()));
                    continue;
                }
            }
            items.add(item(kind, meta, source, config, refresh, lastById));
        }
        return items;
    }

    private Item item(String kind, JsonNode meta, JsonNode source, IndexConfig config, Refresh refresh,
            Map<String, Last> lastById) {
        String id = text(meta, "_id");
        if (id == null || id.isEmpty()) {
            return Item.refused(kind, "", 400, "action_request_validation_exception",
                    "an _id is required (expected: a non-empty string or number; ids are not generated)");
        }
        String index = text(meta, "_index");
        if (index != null && !index.equals(writer.indexName())) {
            return Item.refused(kind, id, 404, "index_not_found_exception", "no such index [" + index
                    + "] (this root serves [" + writer.indexName() + "])");
        }
        long expectedVersion = 0;
        JsonNode seqNo = meta.get("if_seq_no");
        if (seqNo != null) {
            if (!seqNo.canConvertToLong() || seqNo.asLong() < 1) {
                return Item.refused(kind, id, 400, "action_request_validation_exception", "if_seq_no=" + seqNo
                        + " (expected: a seq >= 1; a document from the offline build, at 0, cannot be written"
                        + " conditionally)");
            }
            expectedVersion = seqNo.asLong();
        }
        JsonNode term = meta.get("if_primary_term");
        if (term != null && term.asLong(-1) != 1) {
            return Item.refused(kind, id, 409, "version_conflict_engine_exception", "[" + id
                    + "]: version conflict, required primary term [" + term + "], current term [1]");
        }
        String routing = text(meta, "routing");
        WriteOptions options = new WriteOptions(expectedVersion, refresh, kind.equals("create"));
        try {
            return switch (kind) {
                case "delete" -> new Item(kind, id, inOrder(lastById, id, false, () -> writer.delete(id, routing, options)), 0, null,
                        null);
                case "update" -> update(id, routing, source, config, options, expectedVersion, lastById);
                default -> {
                    if (!(source instanceof ObjectNode object)) {
                        yield Item.refused(kind, id, 400, "mapper_parsing_exception",
                                "the source must be a JSON object of the document's fields");
                    }
                    // A malformed source is answered below; a value (in an array too) not of its field's type
                    // is refused by the primary, with the field named.
                    Map<String, ?> fields = DocumentRoutes.parseOne(id, object, config).fields();
                    yield new Item(kind, id, inOrder(lastById, id, false, () -> writer.upsertFields(id, fields, options)), 0,
                            null, null);
                }
            };
        } catch (ApiException e) {
            return Item.refused(kind, id, 400, "mapper_parsing_exception", e.detail());
        }
    }

    /**
     * An update: reads the document, merges {@code doc} into its fields and writes them if it is
     * still at the version read ({@code if_seq_no}, when given, must be that version).
     */
    private Item update(String id, String routing, JsonNode source, IndexConfig config, WriteOptions options,
            long expectedVersion, Map<String, Last> lastById) {
        if (source == null || !(source.get("doc") instanceof ObjectNode doc)) {
            return Item.refused("update", id, 400, "action_request_validation_exception",
                    "an update needs a source line {\"doc\": {...}} (scripts are not supported)");
        }
        boolean docAsUpsert = source.path("doc_as_upsert").asBoolean(false);
        CompletableFuture<DocumentResult> result = inOrder(lastById, id, true, () -> writer.get(id, routing).thenCompose(current -> {
            if (current.outcome() == DocumentResult.Outcome.NOT_FOUND && !docAsUpsert) {
                return CompletableFuture.completedFuture(new DocumentResult(id, DocumentResult.Outcome.NOT_FOUND, 0,
                        "[" + id + "]: document missing", Map.of()));
            }
            if (current.outcome() != DocumentResult.Outcome.FOUND
                    && current.outcome() != DocumentResult.Outcome.NOT_FOUND) {
                return CompletableFuture.completedFuture(current);
            }
            boolean exists = current.outcome() == DocumentResult.Outcome.FOUND;
            if (expectedVersion > 0 && (!exists || current.version() != expectedVersion)) {
                return CompletableFuture.completedFuture(new DocumentResult(id, DocumentResult.Outcome.CONFLICT,
                        0, "[" + id + "]: version conflict, required seqNo [" + expectedVersion + "], current"
                                + " document has seqNo [" + (exists ? current.version() : "none") + "]", Map.of()));
            }
            ObjectNode merged = JSON.createObjectNode();
            if (exists) {
                // A field read back as a list is a JSON array again; doc's fields replace it whole.
                current.fields().forEach((name, value) -> merged.set(name, JSON.valueToTree(value)));
            }
            merged.setAll(doc.deepCopy());
            merged.remove(IndexConfig.ID_FIELD);
            SourceDocument checked;
            try {
                checked = DocumentRoutes.parseOne(id, merged, config);
            } catch (ApiException e) {
                return CompletableFuture.completedFuture(new DocumentResult(id, DocumentResult.Outcome.REJECTED, 0,
                        e.detail(), Map.of()));
            }
            WriteOptions write = new WriteOptions(exists ? current.version() : 0, options.refresh(), !exists);
            return writer.upsertFields(id, checked.fields(), write);
        }));
        return new Item("update", id, result, 0, null, null);
    }

    /** The bulk's last op on an id so far, and whether it was queued at its partition as it started. */
    private record Last(CompletableFuture<DocumentResult> result, boolean queued) {
    }

    /**
     * Starts {@code op} on {@code id} in the bulk's order for that id, as Elasticsearch applies a
     * bulk's items to a shard in order. A write (index, create, delete) is queued at its partition as
     * it starts, and the partition applies its queue in order, so a write after writes that were
     * queued starts at once (in the same batch as them, when it can). An update ({@code reads}) reads
     * the document before it writes, and a write after an update must follow the update's write: each
     * starts once the op before it on that id has ended. Ops on different ids run at once.
     */
    private static CompletableFuture<DocumentResult> inOrder(Map<String, Last> lastById, String id, boolean reads,
            Supplier<CompletableFuture<DocumentResult>> op) {
        Last previous = lastById.get(id);
        boolean now = previous == null || (!reads && previous.queued());
        CompletableFuture<DocumentResult> next = now ? op.get()
                : previous.result().handle((answer, failure) -> null).thenCompose(ignored -> op.get());
        lastById.put(id, new Last(next, now && !reads));
        return next;
    }

    private static String text(JsonNode meta, String field) {
        JsonNode value = meta.get(field);
        return value == null || value.isNull() || value.isContainerNode() ? null : value.asText();
    }

    private void answer(Exchange exchange, List<Item> items, long startNanos) {
        boolean errors = false;
        boolean retry = false;
        List<Map<String, Object>> answers = new ArrayList<>(items.size());
        for (Item item : items) {
            Map<String, Object> answer = answerOf(item);
            int status = (Integer) answer.get("status");
            errors |= answer.containsKey("error");
            retry |= status == 503;
            answers.add(answer);
        }
        boolean anyErrors = errors;
        DocumentRoutes.send(exchange, HttpResponseStatus.OK, retry, json -> {
            json.writeStartObject();
            json.writeNumberField("took", (System.nanoTime() - startNanos) / 1_000_000);
            json.writeBooleanField("errors", anyErrors);
            json.writeArrayFieldStart("items");
            for (int i = 0; i < items.size(); i++) {
                json.writeStartObject();
                json.writeObjectFieldStart(items.get(i).action());
                write(json, answers.get(i));
                json.writeEndObject();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        });
    }

    private Map<String, Object> answerOf(Item item) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("_index", writer.indexName());
        answer.put("_id", item.id());
        if (item.result() == null) {
            answer.put("status", item.status());
            answer.put("error", errorOf(item.type(), item.reason()));
            return answer;
        }
        DocumentResult result = DocumentRoutes.settled(item.id(), item.result());
        DocumentResult.Outcome outcome = result.outcome();
        if (outcome.succeeded() || (outcome == DocumentResult.Outcome.NOT_FOUND && item.action().equals("delete"))) {
            answer.put("_version", result.version());
            answer.put("result", outcome == DocumentResult.Outcome.NOT_FOUND ? "not_found"
                    : outcome.name().toLowerCase());
            answer.put("_seq_no", result.version());
            answer.put("_primary_term", 1);
            answer.put("status", outcome.httpStatus());
            return answer;
        }
        answer.put("status", outcome.httpStatus());
        String type = switch (outcome) {
            case CONFLICT -> "version_conflict_engine_exception";
            case NOT_FOUND -> "document_missing_exception";
            case UNAVAILABLE -> "unavailable_shards_exception";
            case OVERLOADED -> "es_rejected_execution_exception";
            default -> "mapper_parsing_exception";
        };
        answer.put("error", errorOf(type, result.error()));
        return answer;
    }

    private static Map<String, String> errorOf(String type, String reason) {
        Map<String, String> error = new LinkedHashMap<>();
        error.put("type", type);
        error.put("reason", reason);
        return error;
    }

    private static void write(JsonGenerator json, Map<String, Object> answer) throws IOException {
        for (Map.Entry<String, Object> field : answer.entrySet()) {
            switch (field.getValue()) {
                case Number number -> json.writeNumberField(field.getKey(), number.longValue());
                case Map<?, ?> error -> {
                    json.writeObjectFieldStart(field.getKey());
                    for (Map.Entry<?, ?> part : error.entrySet()) {
                        json.writeStringField(String.valueOf(part.getKey()), String.valueOf(part.getValue()));
                    }
                    json.writeEndObject();
                }
                default -> json.writeStringField(field.getKey(), String.valueOf(field.getValue()));
            }
        }
    }
}
