package io.hedgerow.leaf.write;

import io.hedgerow.common.wire.proto.StoredField;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A write op's or a read document's fields ({@link StoredField}s, one entry per value) by name, as
 * {@link io.hedgerow.leaf.index.SourceDocument#fields()} holds them: a name written once is a string,
 * a name repeated (a JSON array, one entry per value, in order) a list of its values. The leaf maps an
 * op with it, the root a document it read back, so both read a repeated name the same way.
 */
public final class StoredFields {
    private StoredFields() {
    }

    /** {@code fields} by name, in their order: each a string, or a mutable list for a repeated name. */
    public static Map<String, Object> byName(List<StoredField> fields) {
        Map<String, Object> byName = new LinkedHashMap<>();
        for (StoredField field : fields) {
            byName.merge(field.getName(), field.getValue(), StoredFields::append);
        }
        return byName;
    }

    @SuppressWarnings("unchecked")
    private static Object append(Object values, Object value) {
        List<String> list;
        if (values instanceof List<?> several) {
            list = (List<String>) several;
        } else {
            list = new ArrayList<>();
            list.add((String) values);
        }
        list.add((String) value);
        return list;
    }
}
