package io.hedgerow.root.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hedgerow.leaf.index.BadLine;
import io.hedgerow.leaf.index.IndexConfig;
import io.hedgerow.leaf.index.JsonlSource;
import io.hedgerow.leaf.index.SourceDocument;
import io.hedgerow.leaf.index.SourceEntry;
import io.hedgerow.root.write.DocumentResult;
import io.hedgerow.root.write.DocumentWriter;
import io.hedgerow.root.write.DocumentWriter.Refresh;
import io.hedgerow.root.write.DocumentWriter.WriteOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code /documents}: live writes. {@code POST /documents} takes JSON lines, one document with its
 * {@code id} each, and answers each line's outcome (a bad line never fails the good ones);
 * {@code PUT /documents/{id}} adds or replaces one document (its fields as a JSON object),
 * {@code DELETE /documents/{id}} deletes one, {@code GET /documents/{id}} reads one, realtime.
 * {@code PUT} and {@code DELETE} take {@code if_version} (409 when the document's version differs);
 * writes take {@code refresh=true} (the copies refresh before the answer), {@code refresh=wait_for}
 * (the answer waits for the scheduled refresh) or {@code refresh=false} (the default). A bulk body
 * is {@code application/x-ndjson} or {@code application/json} (415 otherwise) of up to
 * {@link HttpApiServer#MAX_DOCUMENTS_BODY_BYTES}; a single document up to {@link #MAX_DOCUMENT_BYTES}
 * (413 beyond, with a JSON body). Documents are checked
 * against the index config as {@code index --input} checks its lines. In an index with a routing
 * key a document is placed by its routing field, and {@code GET} and {@code DELETE} by id need the
 * document's value as {@code routing=VALUE} (400 without it: the id alone does not say where it is).
 *
 * <p>A write refused because its partition's queue is full, or no replica can take it, is a 503
 * with {@code Retry-After}; nothing is acknowledged that is not on disk at every in-sync replica.
 */
final class DocumentRoutes implements Routes {
    static final String PATH = "/documents";
    /**
     * The largest single document body ({@code PUT}): the leaves' largest op (8 MiB encoded,
     * {@code OpChecks.MAX_OP_BYTES} in leaf.write), so a document the root takes fits a log record.
     */
    static final int MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RETRY_AFTER_SECONDS = "1";

    private final DocumentWriter writer;

    DocumentRoutes(DocumentWriter writer) {
        this.writer = writer;
    }

    @Override
    public boolean handles(String path) {
        return path.equals(PATH) || path.startsWith(PATH + "/");
    }

    /** POST, PUT and DELETE change documents; GET reads one. */
    @Override
    public boolean isWrite(FullHttpRequest request) {
        return request.method() != HttpMethod.GET;
    }

    @Override
    public void handle(Exchange exchange) throws ApiException {
        FullHttpRequest request = exchange.request();
        QueryStringDecoder uri = exchange.uri();
        IndexConfig config = writer.config();
        if (config == null) {
            throw new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "unavailable",
                    "no leaf has told this root its index yet, so documents cannot be checked against its config");
        }
        Refresh refresh = refresh(parameter(uri, "refresh"));
        if (uri.path().equals(PATH)) {
            if (request.method() != HttpMethod.POST) {
                throw HttpApiHandler.methodNotAllowed(request, "POST");
            }
            requireJsonLines(request);
            bulk(exchange, request.content(), config, refresh);
            return;
        }
        String id = URLDecoder.decode(uri.path().substring(PATH.length() + 1), StandardCharsets.UTF_8);
        if (id.isEmpty() || id.contains("/")) {
            throw ApiException.badRequest("document id '" + id + "' (expected: /documents/{id}, a non-empty id)");
        }
        long expectedVersion = version(parameter(uri, "if_version"));
        WriteOptions options = new WriteOptions(expectedVersion, refresh);
        CompletableFuture<DocumentResult> result;
        String routing = parameter(uri, "routing");
        if (request.method() == HttpMethod.GET) {
            result = writer.get(id, routing);
        } else if (request.method() == HttpMethod.DELETE) {
            result = writer.delete(id, routing, options);
        } else if (request.method() == HttpMethod.PUT) {
            HttpApiHandler.requireJson(request);
            if (request.content().readableBytes() > MAX_DOCUMENT_BYTES) {
                throw new ApiException(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "payload_too_large",
                        "document '" + id + "' is " + request.content().readableBytes() + " bytes (expected: at most "
                                + MAX_DOCUMENT_BYTES + ", the largest op a leaf logs)");
            }
            SourceDocument doc = parseOne(id, request.content(), config);
            if (routing != null && config.routing() != null
                    && !routing.equals(doc.fields().get(config.routing().field()))) {
                throw ApiException.badRequest("routing=" + routing + " but the document's '" + config.routing().field()
                        + "' is '" + doc.fields().get(config.routing().field()) + "' (expected: the same value, or no"
                        + " routing parameter: a document is placed by its own field)");
            }
            result = writer.upsertFields(id, doc.fields(), options);
        } else {
            throw HttpApiHandler.methodNotAllowed(request, "GET, PUT, DELETE");
        }
        result.whenComplete((answer, failure) -> {
            DocumentResult done = failure == null ? answer
                    : new DocumentResult(id, DocumentResult.Outcome.UNAVAILABLE, 0, String.valueOf(failure), Map.of());
            send(exchange, HttpResponseStatus.valueOf(done.outcome().httpStatus()),
                    !done.outcome().succeeded() && done.outcome().httpStatus() == 503,
                    json -> writeResult(json, done, -1));
        });
    }

    /** The last value of the query parameter {@code name}, or null. */
    static String parameter(QueryStringDecoder uri, String name) {
        List<String> values = uri.parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(values.size() - 1);
    }

    /**
     * {@code refresh}, as Elasticsearch reads it: {@code true} (or no value) refreshes the copies
     * before answering, {@code wait_for} answers once the scheduled refresh made the write visible,
     * {@code false} (the default) answers at once.
     */
    static Refresh refresh(String text) throws ApiException {
        if (text == null || text.equals("false")) {
            return Refresh.NONE;
        }
        return switch (text) {
            case "", "true" -> Refresh.IMMEDIATE;
            case "wait_for" -> Refresh.WAIT_FOR;
            default -> throw ApiException.badRequest("refresh=" + text + " (expected: true, false or wait_for)");
        };
    }

    /**
     * A bulk body is JSON lines: {@code application/x-ndjson} or {@code application/json} (or no
     * content type, taken as JSON as everywhere in this API); anything else, as a form that
     * {@code curl --data} labels by default, is refused with 415 rather than read as documents.
     */
    static void requireJsonLines(FullHttpRequest request) throws ApiException {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (contentType == null) {
            return;
        }
        String type = contentType.toLowerCase(java.util.Locale.ROOT);
        if (!type.startsWith("application/json") && !type.startsWith("application/x-ndjson")) {
            throw new ApiException(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type",
                    "content type " + contentType + " (expected: application/x-ndjson or application/json)");
        }
    }

    private static long version(String text) throws ApiException {
        if (text == null) {
            return 0;
        }
        try {
            long version = Long.parseLong(text);
            if (version >= 1) {
                return version;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("if_version=" + text + " (expected: a version >= 1)");
    }

    /** One document's fields from a PUT body, checked as a bulk line is; the id comes from the path. */
    private static SourceDocument parseOne(String id, ByteBuf body, IndexConfig config) throws ApiException {
        JsonNode tree;
        try {
            tree = JSON.readTree(new ByteBufInputStream(body.duplicate()));
        } catch (IOException e) {
            throw ApiException.badRequest("the body is not valid JSON: " + e.getMessage());
        }
        if (!(tree instanceof ObjectNode object)) {
            throw ApiException.badRequest("the body must be a JSON object of the document's fields");
        }
        return parseOne(id, object, config);
    }

    /** One document's fields from a JSON object, checked as a bulk line is; {@code id} names it. */
    static SourceDocument parseOne(String id, ObjectNode object, IndexConfig config) throws ApiException {
        JsonNode bodyId = object.get(IndexConfig.ID_FIELD);
        if (bodyId != null && !bodyId.asText().equals(id)) {
            throw ApiException.badRequest("'id' in the body is '" + bodyId.asText() + "' but the path names '" + id
                    + "' (expected: the same, or no id in the body)");
        }
        object.put(IndexConfig.ID_FIELD, id);
        try (JsonlSource source = new JsonlSource("body", new ByteArrayInputStream(JSON.writeValueAsBytes(object)),
                config)) {
            SourceEntry entry = source.next();
            if (entry instanceof SourceDocument doc) {
                return doc;
            }
            throw ApiException.badRequest(entry instanceof BadLine bad ? bad.reason() : "an empty body");
        } catch (IOException e) {
            throw ApiException.badRequest("unreadable body: " + e.getMessage());
        }
    }

    /** One line's outcome: a write under way, or the reason it was refused. */
    private record Line(long number, String id, CompletableFuture<DocumentResult> result, String error) {
    }

    private void bulk(Exchange exchange, ByteBuf body, IndexConfig config, Refresh refresh) {
        long startNanos = System.nanoTime();
        List<Line> lines = new ArrayList<>();
        WriteOptions options = new WriteOptions(0, refresh);
        try (JsonlSource source = new JsonlSource("body", new ByteBufInputStream(body.duplicate()), config)) {
            for (SourceEntry entry = source.next(); entry != null; entry = source.next()) {
                switch (entry) {
                    case BadLine bad -> lines.add(new Line(bad.lineNumber(), null, null, bad.reason()));
                    case SourceDocument doc -> lines.add(new Line(doc.lineNumber(), doc.id(),
                            writer.upsertFields(doc.id(), doc.fields(), options), null));
                }
            }
        } catch (IOException e) {
            lines.add(new Line(lines.size() + 1, null, null, "unreadable body: " + e.getMessage()));
        }
        CompletableFuture<?>[] pending = lines.stream().filter(line -> line.result() != null)
                .map(Line::result).toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(pending).whenComplete((ignored, failure) -> {
            boolean retry = false;
            boolean errors = false;
            for (Line line : lines) {
                DocumentResult result = outcome(line);
                errors |= result == null || !result.outcome().succeeded();
                retry |= result != null && result.outcome().httpStatus() == 503;
            }
            boolean anyErrors = errors;
            send(exchange, HttpResponseStatus.OK, retry, json -> {
                json.writeStartObject();
                json.writeNumberField("took_ms", (System.nanoTime() - startNanos) / 1e6);
                json.writeBooleanField("errors", anyErrors);
                json.writeArrayFieldStart("items");
                for (Line line : lines) {
                    DocumentResult result = outcome(line);
                    if (result == null) {
                        json.writeStartObject();
                        json.writeNumberField("line", line.number());
                        json.writeNumberField("status", 400);
                        json.writeStringField("error", line.error());
                        json.writeEndObject();
                    } else {
                        writeResult(json, result, line.number());
                    }
                }
                json.writeEndArray();
                json.writeEndObject();
            });
        });
    }

    private static DocumentResult outcome(Line line) {
        return line.result() == null ? null : settled(line.id(), line.result());
    }

    /** The outcome of a write that has ended; one that failed outright is UNAVAILABLE (a 503, retried). */
    static DocumentResult settled(String id, CompletableFuture<DocumentResult> result) {
        try {
            return result.join();
        } catch (RuntimeException e) {
            return new DocumentResult(id, DocumentResult.Outcome.UNAVAILABLE, 0,
                    String.valueOf(HttpApiHandler.unwrap(e)), Map.of());
        }
    }

    private static void writeResult(JsonGenerator json, DocumentResult result, long line) throws IOException {
        json.writeStartObject();
        if (line > 0) {
            json.writeNumberField("line", line);
        }
        json.writeStringField("id", result.id());
        json.writeStringField("result", result.outcome().name().toLowerCase());
        json.writeNumberField("status", result.outcome().httpStatus());
        if (result.version() > 0 || result.outcome() == DocumentResult.Outcome.FOUND) {
            json.writeNumberField("version", result.version());
        }
        if (!result.error().isEmpty()) {
            json.writeStringField("error", result.error());
        }
        if (!result.fields().isEmpty()) {
            json.writeObjectFieldStart("fields");
            for (Map.Entry<String, Object> field : result.fields().entrySet()) {
                writeValue(json, field.getKey(), field.getValue());
            }
            json.writeEndObject();
        }
        json.writeEndObject();
    }

    /**
     * A read field: its one value as a string (as the document's source gave it: a number's text
     * too), or a JSON array of its values for a field that stored several.
     */
    static void writeValue(JsonGenerator json, String name, Object value) throws IOException {
        if (value instanceof List<?> values) {
            json.writeArrayFieldStart(name);
            for (Object each : values) {
                json.writeString(String.valueOf(each));
            }
            json.writeEndArray();
        } else {
            json.writeStringField(name, String.valueOf(value));
        }
    }

    /** Answers with a JSON body; with {@code Retry-After} when some write was refused for now (a 503). */
    static void send(Exchange exchange, HttpResponseStatus status, boolean retry, JsonResponses.Body body) {
        FullHttpResponse response = HttpApiHandler.response(status, HttpApiHandler.JSON_TYPE,
                JsonResponses.write(exchange.ctx().alloc(), body));
        if (retry) {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        HttpApiHandler.write(exchange, response);
    }
}
