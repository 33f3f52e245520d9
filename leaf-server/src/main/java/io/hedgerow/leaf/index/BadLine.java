package io.hedgerow.leaf.index;

import java.util.Objects;

/**
 * A line of the input that is not a valid document.
 *
 * @param lineNumber the 1-based line number
 * @param reason     what was wrong with it, precise enough to fix the line without a debugger, e.g.
 *                   {@code field 'tags' must be a string, number, boolean or an array of them, got object}
 */
public record BadLine(long lineNumber, String reason) implements SourceEntry {

    public BadLine {
        if (lineNumber < 1) {
            throw new IllegalArgumentException("lineNumber: " + lineNumber + " (expected: >= 1)");
        }
        Objects.requireNonNull(reason, "reason");
    }

    /** {@code line 17: field 'tags' must be a string, number, boolean or an array of them, got object}. */
    public String describe() {
        return "line " + lineNumber + ": " + reason;
    }
}
