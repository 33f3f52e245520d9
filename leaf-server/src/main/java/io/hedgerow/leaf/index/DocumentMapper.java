package io.hedgerow.leaf.index;

import java.util.Map;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.UnicodeUtil;

/**
 * Turns one source document (an id and string fields) into a Lucene document as its
 * {@link IndexConfig} says. Text fields index offsets in their postings so the leaf's highlighter
 * finds snippets without re-analyzing the stored text.
 */
public final class DocumentMapper {
    private static final FieldType TEXT_STORED = textType(true);
    private static final FieldType TEXT_NOT_STORED = textType(false);

    private final IndexConfig config;

    public DocumentMapper(IndexConfig config) {
        this.config = config;
    }

    private static FieldType textType(boolean stored) {
        FieldType type = new FieldType();
        type.setTokenized(true);
        type.setStored(stored);
        type.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
        type.freeze();
        return type;
    }

    /**
     * The Lucene document for {@code id} and {@code fields}.
     *
     * @throws IllegalArgumentException naming the field when the config rejects it, or when the id
     *                                  or a keyword is too long to be one Lucene term
     */
    public Document toDocument(String id, Map<String, String> fields) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("id: missing or empty (expected: a non-empty string)");
        }
        requireOneTerm("id", id);
        Document doc = new Document();
        doc.add(new StringField(IndexConfig.ID_FIELD, id, Field.Store.YES));
        // Also as doc values: the query phase reads each hit's id from them, which is far cheaper
        // than decompressing a block of stored fields per hit.
        doc.add(new BinaryDocValuesField(IndexConfig.ID_FIELD, new BytesRef(id)));
        for (Map.Entry<String, String> field : fields.entrySet()) {
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
            String value = field.getValue();
            switch (spec.type()) {
                case TEXT -> doc.add(new Field(name, value, spec.stored() ? TEXT_STORED : TEXT_NOT_STORED));
                case KEYWORD -> {
                    requireOneTerm("field '" + name + "'", value);
                    doc.add(new StringField(name, value, spec.stored() ? Field.Store.YES : Field.Store.NO));
                }
            }
        }
        return doc;
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
