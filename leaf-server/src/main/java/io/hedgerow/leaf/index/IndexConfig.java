package io.hedgerow.leaf.index;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which fields of a document are searchable, stored and returned, and how text is analyzed. Read
 * once from a small JSON file (see docs/indexing.md); every setting has a default, so an empty
 * object is a valid config. The same config is used to index and to parse queries at the leaf.
 *
 * @param analyzer       name of the analyzer, see {@link Analyzers}
 * @param fields         fields with explicit settings, in declaration order
 * @param unknownFields  what happens to a field the config does not name: {@code text} (indexed as
 *                       searchable, stored, returned text), {@code ignore}, or {@code reject} (the
 *                       document is a bad input line)
 * @param defaultFields  fields a query term without {@code field:} searches; empty means every
 *                       text field
 * @param snippetField   the field highlighted into each hit's snippet; none when absent
 * @param routing        the routing key that places documents and lets queries name their
 *                       partitions ({@link Routing}); none when absent: documents by id alone
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record IndexConfig(
        @JsonProperty("analyzer") String analyzer,
        @JsonProperty("fields") Map<String, FieldSpec> fields,
        @JsonProperty("unknown_fields") UnknownFields unknownFields,
        @JsonProperty("default_fields") List<String> defaultFields,
        @JsonProperty("snippet_field") String snippetField,
        @JsonProperty("routing") Routing routing) {

    /** Name of the field that holds each document's id; it is always stored and returned. */
    public static final String ID_FIELD = "id";

    public enum UnknownFields {
        @JsonProperty("text") TEXT,
        @JsonProperty("ignore") IGNORE,
        @JsonProperty("reject") REJECT
    }

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    public IndexConfig {
        analyzer = Objects.requireNonNullElse(analyzer, "standard");
        Analyzers.requireKnown(analyzer);
        fields = fields == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        fields.forEach((name, spec) -> {
            if (spec == null) {
                throw new IllegalArgumentException("fields: '" + name + "' has no settings (expected: an object such as"
                        + " {\"type\": \"text\"}, or {} for the defaults)");
            }
        });
        Map<String, FieldSpec> declared = fields;
        declared.forEach((name, spec) -> {
            if (name.isEmpty() || name.startsWith("_")) {
                throw new IllegalArgumentException("fields: '" + name + "' (expected: a name that does not start with '_')");
            }
            if (spec.languageField() != null) {
                FieldSpec language = declared.get(spec.languageField());
                if (language == null || language.type() != FieldSpec.Type.KEYWORD) {
                    throw new IllegalArgumentException("fields: '" + name + "' has language_field '" + spec.languageField()
                            + "' (expected: a configured keyword field)");
                }
            }
        });
        if (fields.containsKey(ID_FIELD)) {
            throw new IllegalArgumentException("fields: must not configure '" + ID_FIELD + "' (it is always a stored keyword)");
        }
        unknownFields = Objects.requireNonNullElse(unknownFields, UnknownFields.TEXT);
        defaultFields = defaultFields == null ? List.of() : List.copyOf(defaultFields);
        for (String field : defaultFields) {
            FieldSpec spec = fields.get(field);
            if (spec == null && unknownFields != UnknownFields.TEXT) {
                throw new IllegalArgumentException("default_fields: '" + field + "' is not a configured field");
            }
        }
        if (snippetField != null) {
            FieldSpec spec = fields.get(snippetField);
            if (spec != null && (!spec.stored() || spec.type() != FieldSpec.Type.TEXT)) {
                throw new IllegalArgumentException("snippet_field: '" + snippetField + "' must be a stored text field");
            }
        }
        if (routing != null && fields.get(routing.field()) == null && unknownFields != UnknownFields.TEXT) {
            throw new IllegalArgumentException("routing: field '" + routing.field() + "' is not a configured field");
        }
    }

    /** Without a routing key. */
    public IndexConfig(String analyzer, Map<String, FieldSpec> fields, UnknownFields unknownFields,
            List<String> defaultFields, String snippetField) {
        this(analyzer, fields, unknownFields, defaultFields, snippetField, null);
    }

    /** This config with {@code routing} as its routing key (null: none). */
    public IndexConfig withRouting(Routing routing) {
        return new IndexConfig(analyzer, fields, unknownFields, defaultFields, snippetField, routing);
    }

    /** Defaults: standard analyzer, every field stored and searchable text, snippets of {@code body}. */
    public static IndexConfig defaults() {
        return new IndexConfig(null, null, null, null, "body");
    }

    /**
     * The config for the bundled Europarl corpus: title, the debate's date (a {@code date}), body
     * (with a copy per language, {@code body.<lang>}, analyzed by the document's language's analyzer),
     * the guessed language ({@code lang}, a keyword) and the body's length in characters
     * ({@code body_length}, a long); snippets of the body; no routing key.
     */
    public static IndexConfig europarl() {
        Map<String, FieldSpec> fields = new LinkedHashMap<>();
        fields.put("title", FieldSpec.text(true, true));
        fields.put("date", FieldSpec.of(FieldSpec.Type.DATE, true));
        fields.put("body", FieldSpec.text(true, false).withLanguageField("lang"));
        fields.put("lang", FieldSpec.keyword(true));
        fields.put("body_length", FieldSpec.of(FieldSpec.Type.LONG, true));
        return new IndexConfig("standard", fields, UnknownFields.REJECT, List.of("title", "body"), "body");
    }

    /**
     * Reads a config file.
     *
     * @throws IOException whose one-line message names the file, the problem and where in the file
     *                     it is, when the file cannot be read or is not a valid config
     */
    public static IndexConfig read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return JSON.readValue(in, IndexConfig.class);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "no such index config file");
        } catch (JacksonException e) {
            throw new IOException("invalid index config " + file + at(e.getLocation()) + ": " + problem(e), e);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("invalid index config " + file + ": " + e.getMessage(), e);
        }
    }

    private static String at(JsonLocation location) {
        return location == null || location.getLineNr() < 1
                ? "" : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    /** Jackson's message, which spans lines and names Java classes, said in the config's terms. */
    private static String problem(JacksonException e) {
        if (e instanceof UnrecognizedPropertyException unknown) {
            List<String> known = unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
            return "unknown key '" + path(unknown) + "' (expected one of " + known + ")";
        }
        if (e instanceof ValueInstantiationException invalid && invalid.getCause() instanceof IllegalArgumentException cause) {
            String where = path(invalid);
            return where.isEmpty() ? cause.getMessage() : where + ": " + cause.getMessage();
        }
        if (e instanceof InvalidFormatException format && format.getTargetType() != null && format.getTargetType().isEnum()) {
            List<String> names = new ArrayList<>();
            for (Object constant : format.getTargetType().getEnumConstants()) {
                names.add(constant.toString().toLowerCase(Locale.ROOT));
            }
            return path(format) + ": '" + format.getValue() + "' (expected one of " + names + ")";
        }
        String message = e.getOriginalMessage();
        int newline = message.indexOf('\n');
        message = newline < 0 ? message : message.substring(0, newline);
        String where = e instanceof JsonMappingException mapping ? path(mapping) : "";
        return where.isEmpty() ? message : where + ": " + message;
    }

    /** Where in the config a mapping problem is, e.g. {@code fields.title.stored}. */
    private static String path(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    /** The settings of {@code field}, or null when documents may not have it. */
    public FieldSpec specOf(String field) {
        FieldSpec spec = fields.get(field);
        if (spec != null || ID_FIELD.equals(field)) {
            return spec;
        }
        return unknownFields == UnknownFields.TEXT ? FieldSpec.text(true, true) : null;
    }

    /**
     * The query's default fields, given every field name the index has seen, for a query in any
     * language: the configured default fields, or else every text field seen; a text field with a
     * language field is searched in itself, not in its per-language copies (see
     * {@link #queryFields(List, String)}).
     */
    public List<String> queryFields(List<String> fieldsSeen) {
        return queryFields(fieldsSeen, List.<String>of());
    }

    /**
     * The query's default fields for a query in {@code language} (null: any): as
     * {@link #queryFields(List)}, except that a text field with a language field is searched in its
     * copy for that language only ({@code body.de}), analyzed as that language. Without a language,
     * the field itself (every document, the standard analysis), not its copies: searching all of
     * them multiplied every term's lookups by the number of languages, and measured 2.5 times the
     * CPU per answer on Europarl's 21 (serving-cost.sh, 2026-11-28).
     */
    public List<String> queryFields(List<String> fieldsSeen, String language) {
        return queryFields(fieldsSeen, language == null ? List.of() : List.of(language));
    }

    /**
     * The query's default fields for a query in any of {@code languages} (empty: any language): a
     * text field with a language field is searched in its copy for each of them ({@code body.de},
     * {@code body.fr}: a disjunction, each copy with its own analyzer, so that a document is found
     * through the copy of its own language). It costs the lookups of every copy: with all of
     * Europarl's 21, 2.5 times the CPU per answer of the field itself (serving-cost.sh, 2026-11-28).
     */
    public List<String> queryFields(List<String> fieldsSeen, List<String> languages) {
        List<String> base = new ArrayList<>();
        if (!defaultFields.isEmpty()) {
            base.addAll(defaultFields);
        } else {
            for (String field : fieldsSeen) {
                FieldSpec spec = specOf(field);
                if (spec != null && spec.type() == FieldSpec.Type.TEXT && !isLanguageCopy(field)) {
                    base.add(field);
                }
            }
        }
        if (languages.isEmpty()) {
            return base;
        }
        List<String> result = new ArrayList<>(base.size() * languages.size());
        for (String field : base) {
            FieldSpec spec = fields.get(field);
            if (spec != null && spec.languageField() != null) {
                for (String language : languages) {
                    result.add(field + "." + language);
                }
            } else {
                result.add(field);
            }
        }
        return result;
    }

    /**
     * The languages of the per-language copies among {@code fieldsSeen} ({@code de} of
     * {@code body.de}), sorted, once each: the languages a query with {@code lang: "*"} searches.
     */
    public List<String> languagesSeen(List<String> fieldsSeen) {
        java.util.TreeSet<String> languages = new java.util.TreeSet<>();
        for (String field : fieldsSeen) {
            if (isLanguageCopy(field)) {
                languages.add(field.substring(field.lastIndexOf('.') + 1));
            }
        }
        return List.copyOf(languages);
    }

    /** Whether {@code field} is a per-language copy ({@code body.de}) of a configured text field. */
    public boolean isLanguageCopy(String field) {
        int dot = field.lastIndexOf('.');
        if (dot <= 0 || fields.containsKey(field)) {
            return false;
        }
        FieldSpec base = fields.get(field.substring(0, dot));
        return base != null && base.languageField() != null;
    }

    /** The type of {@code field}: its spec's, text for a per-language copy, null when documents may not have it. */
    public FieldSpec.Type typeOf(String field) {
        if (isLanguageCopy(field)) {
            return FieldSpec.Type.TEXT;
        }
        if (ID_FIELD.equals(field)) {
            return FieldSpec.Type.KEYWORD;
        }
        FieldSpec spec = specOf(field);
        return spec == null ? null : spec.type();
    }
}
