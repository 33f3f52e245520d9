package io.hedgerow.leaf.index;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.GZIPInputStream;

/**
 * Documents from a JSON-lines file: one JSON object per line, with an {@code id} (a non-empty
 * string, or an integer that becomes its decimal string) and fields whose values are strings, numbers,
 * booleans or arrays of them (a multi-valued field; numbers and booleans are kept as their JSON text,
 * which the field's type then reads, and a null is a missing value). Blank lines are
 * skipped. Any other line that is not such an object comes back as a {@link BadLine} naming the
 * problem, and reading goes on with the next line: each line is parsed on its own, which is what
 * lets a bad line be skipped at all (a streaming parser over the whole file cannot resynchronize).
 *
 * <p>Fields the config rejects ({@code unknown_fields: reject}) make the line bad here, at the
 * line, rather than later in the indexer. A file whose name ends in {@code .gz} is decompressed.
 * Lines are read one at a time; a line over {@value #MAX_LINE_BYTES} bytes is a bad line.
 */
public final class JsonlSource implements DocumentSource {
    /** Longest line accepted: far above any sane document, far below the heap. */
    public static final int MAX_LINE_BYTES = 64 * 1024 * 1024;

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final String name;
    private final ByteLines lines;
    private final int maxLineBytes;
    private final IndexConfig config;

    /** Reads {@code in}; {@code name} is used in messages. Takes ownership of the stream. */
    public JsonlSource(String name, InputStream in, IndexConfig config) {
        this(name, in, config, MAX_LINE_BYTES);
    }

    JsonlSource(String name, InputStream in, IndexConfig config, int maxLineBytes) {
        this.name = Objects.requireNonNull(name, "name");
        this.lines = new ByteLines(in, maxLineBytes);
        this.maxLineBytes = maxLineBytes;
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Opens {@code file}, decompressing it when its name ends in {@code .gz}. */
    public static JsonlSource open(Path file, IndexConfig config) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 64 * 1024);
        try {
            if (file.getFileName().toString().endsWith(".gz")) {
                in = new GZIPInputStream(in, 64 * 1024);
            }
        } catch (IOException e) {
            in.close();
            throw new IOException(file + ": not a gzip file (" + e.getMessage() + ")", e);
        }
        return new JsonlSource(file.getFileName().toString(), in, config);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SourceEntry next() throws IOException {
        while (lines.next()) {
            if (lines.tooLong()) {
                return new BadLine(lines.lineNumber(), "line is longer than " + maxLineBytes + " bytes");
            }
            if (!lines.blank()) {
                return parse(lines.lineNumber(), lines.bytes(), lines.length());
            }
        }
        return null;
    }

    private SourceEntry parse(long lineNumber, byte[] bytes, int length) {
        try (JsonParser parser = JSON.createParser(bytes, 0, length)) {
            JsonToken token = parser.nextToken();
            if (token != JsonToken.START_OBJECT) {
                return new BadLine(lineNumber, "expected a JSON object, got " + kind(token));
            }
            String id = null;
            Map<String, Object> fields = new LinkedHashMap<>();
            for (token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (IndexConfig.ID_FIELD.equals(field)) {
                    if (id != null) {
                        return new BadLine(lineNumber, "'id' appears twice");
                    }
                    if (value == JsonToken.VALUE_STRING) {
                        id = parser.getText();
                        if (id.isEmpty()) {
                            return new BadLine(lineNumber, "'id' is empty (expected: a non-empty string or an integer)");
                        }
                    } else if (value == JsonToken.VALUE_NUMBER_INT) {
                        id = parser.getBigIntegerValue().toString();
                    } else {
                        return new BadLine(lineNumber, "'id' must be a string or an integer, got " + kind(value));
                    }
                    continue;
                }
                if (config.specOf(field) == null && config.unknownFields() == IndexConfig.UnknownFields.REJECT) {
                    return new BadLine(lineNumber, "field '" + field + "' is not in the index config (unknown_fields: reject)");
                }
                Object fieldValue;
                if (value == JsonToken.START_ARRAY) {
                    List<String> values = new ArrayList<>();
                    for (JsonToken element = parser.nextToken(); element != JsonToken.END_ARRAY; element = parser.nextToken()) {
                        if (element == JsonToken.VALUE_NULL) {
                            continue;
                        }
                        if (!isScalar(element)) {
                            return new BadLine(lineNumber, "field '" + field + "' must hold strings, numbers or booleans,"
                                    + " got an array holding " + (element == null ? "nothing" : "an " + kind(element)));
                        }
                        values.add(parser.getText());
                    }
                    fieldValue = values;
                } else if (value == JsonToken.VALUE_NULL) {
                    fieldValue = null; // as in Elasticsearch: a null is a missing value
                } else if (isScalar(value)) {
                    fieldValue = parser.getText();
                } else {
                    return new BadLine(lineNumber, "field '" + field + "' must be a string, number, boolean or an array of"
                            + " them, got " + kind(value));
                }
                if (fields.containsKey(field)) {
                    return new BadLine(lineNumber, "field '" + field + "' appears twice");
                }
                fields.put(field, fieldValue);
            }
            if (parser.nextToken() != null) {
                return new BadLine(lineNumber, "unexpected content after the JSON object");
            }
            if (id == null) {
                return new BadLine(lineNumber, "missing 'id' (expected: a non-empty string or an integer)");
            }
            fields.values().removeIf(java.util.Objects::isNull);
            if (config.routing() != null && fields.get(config.routing().field()) instanceof List) {
                return new BadLine(lineNumber, "field '" + config.routing().field() + "' holds several values (expected:"
                        + " one, since the index is routed by it)");
            }
            try {
                return new SourceDocument(id, fields, lineNumber);
            } catch (IllegalArgumentException e) {
                return new BadLine(lineNumber, e.getMessage());
            }
        } catch (JsonProcessingException e) {
            return new BadLine(lineNumber, "not valid JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            // Parsing a byte array does no I/O; Jackson declares it anyway.
            return new BadLine(lineNumber, "not valid JSON: " + firstLine(e.getMessage()));
        }
    }

    private static boolean isScalar(JsonToken token) {
        return token == JsonToken.VALUE_STRING || token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT
                || token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE;
    }

    private static String kind(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case START_OBJECT -> "object";
            case START_ARRAY -> "array";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> token.name();
        };
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no detail)";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    @Override
    public void close() throws IOException {
        lines.close();
    }
}
