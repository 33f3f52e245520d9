package io.hedgerow.root.tail;

import io.hedgerow.api.PartitionError;
import io.hedgerow.api.SearchResult;
import java.util.Map;

/** The estimated heap size of a result, which weighs {@link ResultCache} entries. */
public final class ResultSize {

    private ResultSize() {
    }

    /**
     * A rough size of a result on the heap: object headers and references at a 64-bit JVM's usual
     * sizes, strings at two bytes a character (an upper bound: most are stored at one). Meant to
     * bound memory within a factor of about two, not to measure it.
     */
    public static long estimatedBytes(SearchResult result) {
        long bytes = 48 + 32 + 32 + 3 * 40L; // result, total hits, coverage, three lists
        for (io.hedgerow.api.Hit hit : result.hits()) {
            bytes += 40 + 8 + string(hit.id()) + string(hit.snippet());
            Map<String, String> fields = hit.fields();
            if (fields != null) {
                bytes += 48;
                for (Map.Entry<String, String> field : fields.entrySet()) {
                    bytes += 40 + string(field.getKey()) + string(field.getValue());
                }
            }
            if (!hit.multiValues().isEmpty()) {
                bytes += 48;
                for (Map.Entry<String, java.util.List<String>> field : hit.multiValues().entrySet()) {
                    bytes += 40 + 40 + string(field.getKey());
                    for (String value : field.getValue()) {
                        bytes += 8 + string(value);
                    }
                }
            }
            if (hit.highlight() != null) {
                bytes += 48;
                for (Map.Entry<String, java.util.List<String>> field : hit.highlight().entrySet()) {
                    bytes += 40 + 40 + string(field.getKey());
                    for (String fragment : field.getValue()) {
                        bytes += 8 + string(fragment);
                    }
                }
            }
        }
        for (PartitionError error : result.errors()) {
            bytes += 40 + 8 + string(error.leaf()) + string(error.detail());
        }
        return bytes;
    }

    private static long string(String text) {
        return text == null ? 0 : 40 + 2L * text.length();
    }
}
