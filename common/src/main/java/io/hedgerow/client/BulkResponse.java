package io.hedgerow.client;

import java.util.List;

/**
 * The answer of a bulk {@code POST /documents}: one item per line sent, in order. A line the root
 * could not read as a document has no {@code document}, only its line number and error.
 *
 * @param tookMillis time the root took over the whole request
 * @param errors     whether any line failed
 * @param items      each line's outcome, in order
 */
public record BulkResponse(double tookMillis, boolean errors, List<Item> items) {

    public BulkResponse {
        items = List.copyOf(items);
    }

    /**
     * @param line     the line's number, from 1
     * @param status   its HTTP status (400 for a line that is not a document)
     * @param document its outcome; null when the line could not be read as a document
     * @param error    why it failed; empty when it did not
     */
    public record Item(long line, int status, DocumentResponse document, String error) {
        public Item {
            error = error == null ? "" : error;
        }
    }
}
