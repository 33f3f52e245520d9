package io.hedgerow.leaf.index;

/**
 * One line of a {@link DocumentSource}: a document, or a line that could not be read as one. A bad
 * line is data rather than an exception so that the indexer, not the source, decides whether it
 * ends the build or is skipped.
 */
public sealed interface SourceEntry permits SourceDocument, BadLine {

    /** The 1-based line of the input this entry came from. */
    long lineNumber();
}
