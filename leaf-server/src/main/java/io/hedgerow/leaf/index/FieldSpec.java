package io.hedgerow.leaf.index;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * How one document field is indexed.
 *
 * @param type     {@code text} (analyzed, searchable by terms and phrases) or {@code keyword}
 *                 (one exact token)
 * @param stored   kept in the index so it can be returned or highlighted
 * @param returned sent back with each hit; defaults to {@code stored}. A long body is usually
 *                 stored for snippets but not returned.
 */
public record FieldSpec(
        @JsonProperty("type") Type type,
        @JsonProperty("stored") Boolean stored,
        @JsonProperty("returned") Boolean returned) {

    public enum Type {
        @JsonProperty("text") TEXT,
        @JsonProperty("keyword") KEYWORD
    }

    public FieldSpec {
        type = Objects.requireNonNullElse(type, Type.TEXT);
        stored = Objects.requireNonNullElse(stored, Boolean.TRUE);
        returned = Objects.requireNonNullElse(returned, stored);
        if (returned && !stored) {
            throw new IllegalArgumentException("returned: true needs stored: true (a field that is not stored cannot be returned)");
        }
    }

    public static FieldSpec text(boolean stored, boolean returned) {
        return new FieldSpec(Type.TEXT, stored, returned);
    }

    public static FieldSpec keyword(boolean stored) {
        return new FieldSpec(Type.KEYWORD, stored, stored);
    }
}
