package io.hedgerow.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the root did with one document: the answer of {@code PUT}, {@code DELETE} or {@code GET
 * /documents/{id}}, or one line of a bulk {@code POST /documents}. A refusal the document itself
 * causes (a conflict, a field the index does not take, a busy partition after the retries) is an
 * outcome, not an exception, as the root's own writer reports it.
 *
 * @param id      the document's id
 * @param outcome what happened
 * @param status  the HTTP status of the outcome (201 created, 404 not found, 503 unavailable...)
 * @param version the document's version after the write, or when read; 0 when nothing was written
 * @param error   why it was refused; empty unless refused
 * @param fields  a read document's stored fields, each a string, or a list of strings for a field
 *                that holds several values (written as a JSON array); empty otherwise
 */
public record DocumentResponse(String id, Outcome outcome, int status, long version, String error,
        Map<String, Object> fields) {

    /** The root's outcomes, as its {@code "result"} field names them. */
    public enum Outcome {
        CREATED, UPDATED, DELETED, FOUND, NOT_FOUND, CONFLICT, REJECTED, UNAVAILABLE, OVERLOADED;

        /** {@code created}, {@code not_found}...: the name in the root's answers. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Outcome parse(String label) {
            for (Outcome outcome : values()) {
                if (outcome.label().equals(label)) {
                    return outcome;
                }
            }
            throw new IllegalArgumentException("result: '" + label + "' (expected one of: created, updated, deleted,"
                    + " found, not_found, conflict, rejected, unavailable, overloaded)");
        }
    }

    public DocumentResponse {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(outcome, "outcome");
        error = error == null ? "" : error;
        Map<String, Object> copy = new LinkedHashMap<>();
        fields.forEach((name, value) -> copy.put(name, value instanceof List<?> values ? List.copyOf(values) : value));
        fields = Collections.unmodifiableMap(copy);
    }

    /** The values of {@code field}: none when absent, one for a single value, else all, in order. */
    public List<String> values(String field) {
        return switch (fields.get(field)) {
            case null -> List.of();
            case List<?> several -> several.stream().map(String::valueOf).toList();
            case Object one -> List.of(String.valueOf(one));
        };
    }

    /** Created, updated, deleted or found. */
    public boolean succeeded() {
        return status < 300;
    }
}
