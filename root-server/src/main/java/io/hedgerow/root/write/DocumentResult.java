package io.hedgerow.root.write;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What happened to one document operation.
 *
 * @param id      the document's id
 * @param outcome what happened
 * @param version the document's version after the write (the seq of its last write in its
 *                partition; 0 for a document from the offline build), or its version when read;
 *                0 when nothing was written
 * @param error   why it was refused; empty unless refused
 * @param fields  a read document's stored fields, each a string, or an unmodifiable list of strings
 *                for a field that holds several values; empty otherwise
 */
public record DocumentResult(String id, Outcome outcome, long version, String error, Map<String, Object> fields) {
    /** Outcomes; the first four mean success. */
    public enum Outcome {
        CREATED(201), UPDATED(200), DELETED(200), FOUND(200), NOT_FOUND(404), CONFLICT(409), REJECTED(400),
        /** No replica of the partition could take the write (all down, or the disk full): retry later. */
        UNAVAILABLE(503),
        /** Too many writes queued for the partition (backpressure): retry after a moment. */
        OVERLOADED(503);

        private final int httpStatus;

        Outcome(int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }

        public boolean succeeded() {
            return httpStatus < 300;
        }
    }

    public DocumentResult {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(outcome, "outcome");
        error = error == null ? "" : error;
        Map<String, Object> copy = new java.util.LinkedHashMap<>();
        fields.forEach((name, value) -> copy.put(name, value instanceof List<?> values ? List.copyOf(values) : value));
        // In the stored order (a GET answers the fields as the document stored them).
        fields = java.util.Collections.unmodifiableMap(copy);
    }

    static DocumentResult refused(String id, Outcome outcome, String error) {
        return new DocumentResult(id, outcome, 0, error, Map.of());
    }
}
