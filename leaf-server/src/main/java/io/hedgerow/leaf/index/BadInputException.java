package io.hedgerow.leaf.index;

import java.io.IOException;

/** Thrown when a build meets a bad line and the policy is {@link BadLinePolicy#FAIL}. */
public final class BadInputException extends IOException {
    private final transient BadLine badLine;

    public BadInputException(String sourceName, BadLine badLine) {
        super(sourceName + ": " + badLine.describe());
        this.badLine = badLine;
    }

    public BadLine badLine() {
        return badLine;
    }
}
