package io.hedgerow.leaf.index;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * How one document field is indexed. Every type but {@code text} also gets doc values (sorting,
 * {@code exists}) and every numeric type points (ranges): see docs/indexing.md.
 *
 * @param type          {@code text} (analyzed, searchable by terms and phrases), {@code keyword}
 *                      (one exact token), {@code long}, {@code double}, {@code date} (ISO 8601 or
 *                      epoch millis, kept as epoch millis) or {@code boolean}
 * @param stored        kept in the index so it can be returned or highlighted
 * @param returned      sent back with each hit; defaults to {@code stored}. A long body is usually
 *                      stored for snippets but not returned.
 * @param analyzer      text only: this field's analyzer ({@link Analyzers#NAMES}); null: the index's
 * @param languageField text only: a keyword field whose value (a language code such as {@code de})
 *                      picks the analyzer of a second copy of this field, {@code <field>.<lang>}
 *                      ({@link Analyzers#forLanguage}); null: no per-language copy
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FieldSpec(
        @JsonProperty("type") Type type,
        @JsonProperty("stored") Boolean stored,
        @JsonProperty("returned") Boolean returned,
        @JsonProperty("analyzer") String analyzer,
        @JsonProperty("language_field") String languageField) {

    public enum Type {
        @JsonProperty("text") TEXT,
        @JsonProperty("keyword") KEYWORD,
        @JsonProperty("long") LONG,
        @JsonProperty("double") DOUBLE,
        @JsonProperty("date") DATE,
        @JsonProperty("boolean") BOOLEAN;

        /** Indexed as points and numeric doc values: ranges and numeric sorting. */
        public boolean numeric() {
            return this == LONG || this == DOUBLE || this == DATE || this == BOOLEAN;
        }
    }

    public FieldSpec {
        type = Objects.requireNonNullElse(type, Type.TEXT);
        stored = Objects.requireNonNullElse(stored, Boolean.TRUE);
        returned = Objects.requireNonNullElse(returned, stored);
        if (returned && !stored) {
            throw new IllegalArgumentException("returned: true needs stored: true (a field that is not stored cannot be returned)");
        }
        if (analyzer != null) {
            if (type != Type.TEXT) {
                throw new IllegalArgumentException("analyzer: '" + analyzer + "' on a " + type.name().toLowerCase()
                        + " field (expected: only on text fields)");
            }
            Analyzers.requireKnown(analyzer);
        }
        if (languageField != null && type != Type.TEXT) {
            throw new IllegalArgumentException("language_field: '" + languageField + "' on a "
                    + type.name().toLowerCase() + " field (expected: only on text fields)");
        }
    }

    /** A field of {@code type} with the index's analyzer and no language copy. */
    public FieldSpec(Type type, Boolean stored, Boolean returned) {
        this(type, stored, returned, null, null);
    }

    public static FieldSpec text(boolean stored, boolean returned) {
        return new FieldSpec(Type.TEXT, stored, returned);
    }

    public static FieldSpec keyword(boolean stored) {
        return new FieldSpec(Type.KEYWORD, stored, stored);
    }

    public static FieldSpec of(Type type, boolean stored) {
        return new FieldSpec(type, stored, stored);
    }

    /** This text field with a per-language copy picked by {@code field}. */
    public FieldSpec withLanguageField(String field) {
        return new FieldSpec(type, stored, returned, analyzer, field);
    }

    /** This text field analyzed by {@code name}. */
    public FieldSpec withAnalyzer(String name) {
        return new FieldSpec(type, stored, returned, name, languageField);
    }
}
