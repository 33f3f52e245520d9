package io.hedgerow.leaf.index;

import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.SortedSetDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.UnicodeUtil;

/**
 * Turns one source document (an id and its field values) into a Lucene document as its
 * {@link IndexConfig} says:
 * <ul>
 *   <li>{@code text}: analyzed, with offsets in its postings so the leaf's highlighter finds
 *       snippets without re-analyzing the stored text; with a {@code language_field}, a second,
 *       unstored copy {@code <field>.<lang>} analyzed by that language's analyzer;</li>
 *   <li>{@code keyword}: one term, and sorted-set doc values (sorting, {@code exists});</li>
 *   <li>{@code long}, {@code double}, {@code date}, {@code boolean}: a point per value (ranges and
 *       exact terms, without term expansion) and sorted-numeric doc values, both over the
 *       {@link FieldValues sortable long}; the stored value is the source's text.</li>
 * </ul>
 * A multi-valued field (a JSON array) adds each value. Every value of a typed field is checked
 * here, so a bad one fails its document with the field named (the caller adds the line).
 */
public final class DocumentMapper {
    private static final FieldType TEXT_STORED = textType(true, true);
    private static final FieldType TEXT_NOT_STORED = textType(false, true);
    /** A per-language copy: searched, never highlighted (the base field is), so no offsets. */
    private static final FieldType LANGUAGE_COPY = textType(false, false);

    private final IndexConfig config;

    public DocumentMapper(IndexConfig config) {
        this.config = config;
    }

    private static FieldType textType(boolean stored, boolean offsets) {
        FieldType type = new FieldType();
        type.setTokenized(true);
        type.setStored(stored);
        type.setIndexOptions(offsets ? IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS
                : IndexOptions.DOCS_AND_FREQS_AND_POSITIONS);
        type.freeze();
        return type;
    }

    /**
     * The Lucene document for {@code id} and {@code fields} (values as {@link SourceDocument#fields()}
     * holds them: a string, or a list of strings).
     *
     * @throws IllegalArgumentException naming the field when the config rejects it, when a value is
     *                                  not of the field's type, or when the id or a keyword is too
     *                                  long to be one Lucene term
     */
    public Document toDocument(String id, Map<String, ?> fields) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("id: missing or empty (expected: a non-empty string)");
        }
        requireOneTerm("id", id);
        Document doc = new Document();
        doc.add(new StringField(IndexConfig.ID_FIELD, id, Field.Store.YES));
        // Also as sorted doc values: the query phase reads each hit's id from them (far cheaper than
        // decompressing a block of stored fields per hit), and sorts break ties by them.
        doc.add(new SortedDocValuesField(IndexConfig.ID_FIELD, new BytesRef(id)));
        for (Map.Entry<String, ?> field : fields.entrySet()) {
            String name = field.getKey();
            if (IndexConfig.ID_FIELD.equals(name)) {
                continue;
            }
            FieldSpec spec = config.specOf(name);
            if (spec == null) {
                if (config.unknownFields() == IndexConfig.UnknownFields.REJECT) {
                    throw new IllegalArgumentException("field '" + name + "' is not in the index config (unknown_fields: reject)");
                }
                continue;
            }
            List<String> values = SourceDocument.valuesOf(field.getValue());
            for (String value : values) {
                add(doc, name, spec, value, fields);
            }
        }
        return doc;
    }

    private void add(Document doc, String name, FieldSpec spec, String value, Map<String, ?> fields) {
        switch (spec.type()) {
            case TEXT -> {
                doc.add(new Field(name, value, spec.stored() ? TEXT_STORED : TEXT_NOT_STORED));
                String copy = languageCopyOf(name, spec, fields);
                if (copy != null) {
                    doc.add(new Field(copy, value, LANGUAGE_COPY));
                }
            }
            case KEYWORD -> {
                requireOneTerm("field '" + name + "'", value);
                doc.add(new StringField(name, value, spec.stored() ? Field.Store.YES : Field.Store.NO));
                doc.add(new SortedSetDocValuesField(name, new BytesRef(value)));
            }
            case LONG, DOUBLE, DATE, BOOLEAN -> {
                long sortable = FieldValues.toSortableLong(spec.type(), name, value);
                doc.add(new LongPoint(name, sortable));
                doc.add(new SortedNumericDocValuesField(name, sortable));
                if (spec.stored()) {
                    doc.add(new StoredField(name, value));
                }
            }
        }
    }

    /**
     * The per-language copy of text field {@code name} in a document with {@code fields}:
     * {@code <name>.<lang>}, with {@code lang} the value of the field's language field; null when
     * the field has no language field, or the document no usable language (one value that is a
     * lower-case code of 2 to 8 letters).
     */
    public String languageCopyOf(String name, FieldSpec spec, Map<String, ?> fields) {
        if (spec.languageField() == null) {
            return null;
        }
        Object language = fields.get(spec.languageField());
        return language instanceof String code && Analyzers.isLanguageCode(code) ? name + "." + code : null;
    }

    /**
     * Checks up front what Lucene would otherwise reject deep inside the writer (an "immense term"),
     * where the document's line number is no longer known.
     */
    private static void requireOneTerm(String what, String value) {
        if ((long) value.length() * 3 <= IndexWriter.MAX_TERM_LENGTH) {
            return; // no string this short can exceed the limit in UTF-8
        }
        int bytes = UnicodeUtil.calcUTF16toUTF8Length(value, 0, value.length());
        if (bytes > IndexWriter.MAX_TERM_LENGTH) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes long in UTF-8 (expected: at most "
                    + IndexWriter.MAX_TERM_LENGTH + ", since it is indexed as one term)");
        }
    }

    /** Whether hits should carry {@code field}'s stored value. */
    public boolean isReturned(String field) {
        if (IndexConfig.ID_FIELD.equals(field)) {
            return false; // carried as the hit's id, not as a field
        }
        FieldSpec spec = config.specOf(field);
        return spec != null && spec.returned();
    }
}
